// `--format claude`: the run's events in Claude Code's headless shapes, for scripts built on
// `claude -p --output-format stream-json|json`. The shapes are those of the Agent SDK's SDKMessage
// (https://docs.anthropic.com/en/docs/claude-code/sdk/sdk-typescript, "Message Types"): a `system`
// `init` first, an `assistant` message per reply (the Anthropic Messages shape: text, thinking and
// tool_use blocks), a `user` message per tool result (tool_result blocks), a `system`
// `compact_boundary` when the conversation was summarised, and the `result` last. With `json` only
// the result is written, as `claude -p --output-format json` does. The events stay declared once
// (core/event-schema.ts); this is a translation of them at the edge, not a second event stream.
//
// Tool names are Claude Code's where it has one (`Bash`, `Read`, `mcp__srv__tool`; settings/
// tool-names.ts, passed in as `claudeName`), and a tool_use's input carries Claude's field names
// beside ours (`file_path` beside `path`), as the hook payloads do. Where harness cannot say what
// Claude Code says, it says less rather than invent: `permission_denials` lists the calls the
// approval refused (a deny or ask rule, a "no", nobody to ask), not those a hook blocked or
// that failed; `total_cost_usd` is 0 when the model's
// prices are unknown, `apiKeySource` is "none", and `modelUsage` is left out.
import { randomUUID } from "node:crypto";
import type { AgentEvent } from "../../core/events.ts";
import { type AssistantMessage, assertNever, type ToolResultMessage, type Usage } from "../../core/messages.ts";
import { REFUSED_SUMMARY } from "../../core/run-tools.ts";

/** What the `init` message tells that the events do not. */
export interface ClaudeInit {
  cwd: string;
  tools: readonly string[];
  model: string;
  /** harness's approval mode (`ask`, `edits`, `all`), named as Claude Code names its permission modes. */
  approvalMode: "ask" | "edits" | "plan" | "all";
  slashCommands: readonly string[];
  /** Claude Code's name for a harness tool (`bash` -> `Bash`), ours where it has none. */
  claudeName(tool: string): string;
  /** A tool's input as Claude Code's tools read it: ours, with Claude's field names beside. */
  claudeInput(tool: string, input: Record<string, unknown>): unknown;
}

const PERMISSION_MODES = { ask: "default", edits: "acceptEdits", plan: "plan", all: "bypassPermissions" } as const;

/** Writes one run's events as Claude Code's messages, one JSON object a line. */
export class ClaudeOutput {
  private sessionId = "";
  private readonly startedAt = Date.now();
  private modelCallStartedAt: number | undefined;
  private apiMs = 0;
  /** The run's tool calls by id, as Claude names them, for its permission denials. */
  private readonly calls = new Map<string, { tool_name: string; tool_input: unknown }>();
  private denials: Array<{ tool_name: string; tool_use_id: string; tool_input: unknown }> = [];

  constructor(
    private readonly format: "json" | "stream-json",
    private readonly init: ClaudeInit,
    private readonly stdout: NodeJS.WritableStream,
  ) {}

  write(event: AgentEvent): void {
    for (const message of this.translate(event, null))
      if (this.format === "stream-json" || message.type === "result") this.stdout.write(`${JSON.stringify(message)}\n`);
  }

  private translate(event: AgentEvent, parentToolUseId: string | null): ClaudeMessage[] {
    switch (event.type) {
      case "start":
        this.sessionId = event.sessionId ?? "";
        return parentToolUseId ? [] : [this.initMessage()];
      case "turn_start":
        this.modelCallStartedAt = Date.now();
        return [];
      case "message":
        if (event.message.role === "assistant") {
          this.countApiTime();
          return [this.assistantMessage(event.message, parentToolUseId)];
        }
        return event.message.role === "tool" ? [this.toolResultMessage(event.message, parentToolUseId)] : [];
      case "compaction":
        return [
          {
            type: "system",
            subtype: "compact_boundary",
            session_id: this.sessionId,
            uuid: randomUUID(),
            compact_metadata: {
              trigger: event.reason === "manual" ? "manual" : "auto",
              pre_tokens: event.tokensBefore,
            },
          },
        ];
      case "subagent":
        // A subagent's replies and results, marked with the task call that started it (as Claude Code marks its Task's).
        return event.event.type === "message" ? this.translate(event.event, event.parentToolCallId) : [];
      case "done":
        return parentToolUseId ? [] : [this.resultMessage(event)];
      case "tool_end": {
        const call = this.calls.get(event.id);
        if (call && event.summary === REFUSED_SUMMARY) this.denials.push({ ...call, tool_use_id: event.id });
        return [];
      }
      case "text_delta":
      case "thinking_delta":
      case "tool_start":
      case "retry":
      case "compaction_stopped":
      case "usage":
      case "todo":
      case "prompt_progress":
      case "call_usage":
      case "tool_output": // Claude Code's stream has no live output
        return [];
      default:
        return assertNever(event);
    }
  }

  private initMessage(): ClaudeMessage {
    const servers = [
      ...new Set(this.init.tools.filter((name) => name.includes("__")).map((name) => name.split("__")[0])),
    ];
    return {
      type: "system",
      subtype: "init",
      cwd: this.init.cwd,
      session_id: this.sessionId,
      tools: this.init.tools.map((tool) => this.init.claudeName(tool)),
      mcp_servers: servers.map((name) => ({ name, status: "connected" })),
      model: this.init.model,
      permissionMode: PERMISSION_MODES[this.init.approvalMode],
      slash_commands: [...this.init.slashCommands],
      apiKeySource: "none",
      output_style: "default",
      uuid: randomUUID(),
    };
  }

  private countApiTime(): void {
    if (this.modelCallStartedAt !== undefined) this.apiMs += Date.now() - this.modelCallStartedAt;
    this.modelCallStartedAt = undefined;
  }

  private assistantMessage(message: AssistantMessage, parentToolUseId: string | null): ClaudeMessage {
    const content = message.content.map((part) => {
      switch (part.type) {
        case "text":
          return { type: "text", text: part.text };
        case "thinking":
          return { type: "thinking", thinking: part.text, signature: part.signature ?? "" };
        case "tool_call": {
          const name = this.init.claudeName(part.name);
          const input = this.init.claudeInput(part.name, inputOf(part.arguments));
          if (parentToolUseId === null) this.calls.set(part.id, { tool_name: name, tool_input: input });
          return { type: "tool_use", id: part.id, name, input };
        }
        default:
          return assertNever(part);
      }
    });
    return {
      type: "assistant",
      message: {
        id: `msg_${randomUUID().replaceAll("-", "")}`,
        type: "message",
        role: "assistant",
        model: message.model ?? this.init.model,
        content,
        stop_reason: STOP_REASONS[message.stopReason],
        stop_sequence: null,
        usage: usageOf(message.usage),
      },
      parent_tool_use_id: parentToolUseId,
      session_id: this.sessionId,
      uuid: randomUUID(),
    };
  }

  private toolResultMessage(message: ToolResultMessage, parentToolUseId: string | null): ClaudeMessage {
    const images = (message.images ?? []).map((image) => ({
      type: "image",
      source: { type: "base64", media_type: image.mediaType, data: image.data },
    }));
    return {
      type: "user",
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: images.length > 0 ? [{ type: "text", text: message.content }, ...images] : message.content,
            is_error: message.isError,
          },
        ],
      },
      parent_tool_use_id: parentToolUseId,
      session_id: this.sessionId,
      uuid: randomUUID(),
    };
  }

  private resultMessage(done: Extract<AgentEvent, { type: "done" }>): ClaudeMessage {
    const subtype = RESULT_SUBTYPES[done.reason];
    const denials = this.denials;
    this.denials = [];
    this.calls.clear();
    return {
      type: "result",
      subtype,
      is_error: subtype !== "success",
      duration_ms: Date.now() - this.startedAt,
      duration_api_ms: this.apiMs,
      num_turns: done.turns,
      ...(subtype === "success" ? { result: done.answer } : { errors: done.error ? [done.error] : [] }),
      // --json-schema's answer, where Claude Code puts it: its result carries `structured_output` when
      // the answer validated (as its Agent SDK's SDKResultMessage types it; docs/structured-output.md).
      ...(subtype === "success" && done.structured_output !== undefined
        ? { structured_output: done.structured_output }
        : {}),
      session_id: this.sessionId,
      total_cost_usd: done.cost ?? 0,
      usage: { ...usageOf(done.usage), server_tool_use: { web_search_requests: 0 }, service_tier: "standard" },
      permission_denials: denials,
      uuid: randomUUID(),
    };
  }
}

/** One line of the output: a JSON object with a `type`. */
type ClaudeMessage = { type: string } & Record<string, unknown>;

const STOP_REASONS: Record<AssistantMessage["stopReason"], string | null> = {
  stop: "end_turn",
  tool_use: "tool_use",
  length: "max_tokens",
  refusal: "refusal",
  pause: "pause_turn",
  aborted: null,
  error: null,
};

/** Claude Code's result subtypes: an interrupted or failed run is an error during execution. */
const RESULT_SUBTYPES = {
  stop: "success",
  max_turns: "error_max_turns",
  aborted: "error_during_execution",
  error: "error_during_execution",
} as const;

function usageOf(usage: Usage | undefined) {
  return {
    input_tokens: usage?.input ?? 0,
    cache_creation_input_tokens: usage?.cacheWrite ?? 0,
    cache_read_input_tokens: usage?.cacheRead ?? 0,
    output_tokens: usage?.output ?? 0,
  };
}

/** A tool call's arguments as the object Claude Code's tool_use carries; text that is not a JSON object stays whole under `raw`. */
function inputOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // broken JSON from the model: kept as it came
  }
  return { raw: text };
}
