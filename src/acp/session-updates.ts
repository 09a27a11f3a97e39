// Translations between harness's neutral data and ACP's session updates: the live event stream
// of a prompt, and a stored conversation replayed when an editor loads a session.
import type {
  ToolKind as AcpToolKind,
  ContentBlock,
  SessionUpdate,
  StopReason,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { AgentEvent, DoneReason } from "../core/events.ts";
import { assertNever, type Message, type UserContent } from "../core/messages.ts";
import type { ToolKind } from "../core/tool.ts";

/** Turns one prompt's events into updates; remembers which tool calls the editor already knows. */
export class UpdateTranslator {
  /** Calls the editor has seen (announced for a permission question, or started). */
  readonly known = new Set<string>();
  /** Plan-mode plans by their call's id (Tool.proposedPlan), shown as the call's content; the last one proposed. */
  private readonly plans = new Map<string, string>();
  lastPlan: { toolCallId: string; plan: string } | undefined;

  constructor(
    private readonly kindOf: (toolName: string) => ToolKind | undefined,
    private readonly planOf: (toolName: string, input: unknown) => string | undefined = () => undefined,
  ) {}

  toUpdates(event: AgentEvent): SessionUpdate[] {
    switch (event.type) {
      case "text_delta":
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } }];
      case "thinking_delta":
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } }];
      case "tool_start": {
        const rawInput = parseJson(event.arguments);
        const plan = this.planOf(event.name, rawInput);
        if (plan !== undefined) this.plans.set(event.id, plan);
        if (this.known.has(event.id))
          return [
            {
              sessionUpdate: "tool_call_update",
              toolCallId: event.id,
              status: "in_progress",
              title: event.summary,
              rawInput,
            },
          ];
        this.known.add(event.id);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.id,
            title: event.summary,
            kind: plan === undefined ? acpKind(this.kindOf(event.name)) : "switch_mode",
            status: "in_progress",
            rawInput,
          },
        ];
      }
      case "tool_end": {
        const status = event.isError ? "failed" : "completed";
        const plan = event.isError ? undefined : this.plans.get(event.id);
        if (plan !== undefined) this.lastPlan = { toolCallId: event.id, plan };
        // A plan's call shows the plan (Markdown), not the line the model got back.
        const shown = plan ?? (event.diff ? `${event.content}\n\n${event.diff}` : event.content);
        const content = textContent(shown);
        if (this.known.has(event.id))
          return [{ sessionUpdate: "tool_call_update", toolCallId: event.id, status, content }];
        // Refused, unknown or invalid calls end without starting: announce them already finished.
        this.known.add(event.id);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.id,
            title: event.summary ?? event.name,
            kind: acpKind(this.kindOf(event.name)),
            status,
            content,
          },
        ];
      }
      case "retry":
        // An editor cannot take back chunks it has shown; it is told that they are void.
        return event.discardPartial
          ? [
              {
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: "\n\n(the reply above was cut off and starts over)\n\n" },
              },
            ]
          : [];
      case "todo":
        // The editor's plan view: the whole list each time, as ACP's plan update wants it.
        return [
          {
            sessionUpdate: "plan",
            entries: event.items.map((item) => ({
              content: item.content,
              priority: "medium",
              status: item.status === "done" ? "completed" : item.status,
            })),
          },
        ];
      case "start":
      case "turn_start":
      case "prompt_progress": // the editor shows its own waiting state
      case "call_usage":
      case "tool_output": // the call's result carries the whole output
      case "message":
      case "usage":
      case "compaction":
      case "compaction_stopped":
      case "done":
      case "subagent": // the task call's own updates show it; its result carries the answer
        return [];
      default:
        return assertNever(event);
    }
  }
}

/** How a run's end reads to the editor; an error is not a stop reason (the prompt request fails instead). */
export function stopReasonFor(reason: Exclude<DoneReason, "error">): StopReason {
  switch (reason) {
    case "stop":
      return "end_turn";
    case "max_turns":
      return "max_turn_requests";
    case "aborted":
      return "cancelled";
    default:
      return assertNever(reason);
  }
}

export function acpKind(kind: ToolKind | undefined): AcpToolKind {
  switch (kind) {
    case "read":
      return "read";
    case "edit":
      return "edit";
    case "execute":
      return "execute";
    case undefined:
      return "other";
    default:
      return assertNever(kind);
  }
}

/** A stored conversation as the updates an editor needs to show it again (ACP `session/load`). */
export function replayUpdates(
  messages: Message[],
  kindOf: (toolName: string) => ToolKind | undefined,
): SessionUpdate[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages) if (message.role === "tool") results.set(message.toolCallId, message);
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        for (const part of message.content)
          updates.push({
            sessionUpdate: "user_message_chunk",
            content:
              part.type === "text"
                ? { type: "text", text: part.text }
                : { type: "image", mimeType: part.mediaType, data: part.data },
          });
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "text")
            updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
          else if (part.type === "thinking" && part.text)
            updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } });
          else if (part.type === "tool_call") {
            const result = results.get(part.id);
            updates.push({
              sessionUpdate: "tool_call",
              toolCallId: part.id,
              title: part.name,
              kind: acpKind(kindOf(part.name)),
              status: !result || result.isError ? "failed" : "completed",
              rawInput: parseJson(part.arguments),
              ...(result ? { content: textContent(result.content) } : {}),
            });
          }
        }
        break;
      case "tool":
        break; // shown with its call
      default:
        assertNever(message);
    }
  }
  return updates;
}

/**
 * The prompt's content blocks for the model: text as is, files and links as references, in one
 * text; pictures as image parts in their place among it (still as the editor sent them).
 */
export function promptContent(blocks: ContentBlock[]): string | UserContent {
  const content: UserContent = [];
  const texts: string[] = [];
  const flush = () => {
    if (texts.length > 0) content.push({ type: "text", text: texts.splice(0).join("\n") });
  };
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "resource_link":
        texts.push(`[${block.name}](${block.uri})`);
        break;
      case "resource": {
        const resource = block.resource as { uri: string; text?: string };
        texts.push(
          resource.text !== undefined
            ? `<context uri="${resource.uri}">\n${resource.text}\n</context>`
            : `[attached: ${resource.uri}]`,
        );
        break;
      }
      case "image":
        flush();
        content.push({ type: "image", mediaType: block.mimeType, data: block.data });
        break;
      case "audio":
        texts.push(`[audio attachment not supported by harness: ${block.mimeType}]`);
        break;
    }
  }
  if (content.length === 0) return texts.join("\n");
  flush();
  return content;
}

/** One text block of a tool call's content. */
export function textContent(text: string): ToolCallContent[] {
  return [{ type: "content", content: { type: "text", text } }];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
