// A resumed chat opens with the end of its conversation, drawn as it looked live: prompts after
// `> `, replies as rendered Markdown, each tool call as its one-line trace (`bash> ls`) with its
// output folded, so the user knows where they were. The stored messages are replayed through the
// same renderer as live events. What only the live run had is not stored: durations, and diffs,
// except an edit's, which its result's text carries and which is drawn as the coloured diff again.
import type { AgentEvent } from "../core/events.ts";
import { splitHookContext } from "../core/hook-context.ts";
import { assertNever, type Message, type ToolCallPart, textOf, toolCallsOf } from "../core/messages.ts";
import { countOf } from "../shared/helpers.ts";
import type { Palette } from "./colors.ts";
import { TerminalRenderer } from "./render/terminal-renderer.ts";
import { forTerminal } from "./terminal-safe.ts";

/** Prompts (with what followed each) shown when a chat resumes. */
const REPLAY_TURNS = 3;
/** Lines of each prompt shown (a prompt may carry attached files); the rest is summarised. */
const REPLAY_PROMPT_LINES = 6;

export interface ReplayTarget {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  colors: Palette;
  /** The trace a call showed when it ran (core's describeCall over the session's tools). */
  describe(call: ToolCallPart): string;
}

/** Draws the last few turns of a conversation (nothing for no messages). */
export function replayTranscript(untrusted: Message[], target: ReplayTarget): void {
  const { colors, stderr } = target;
  const messages = forTerminal(untrusted);
  const prompts = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
  const from = prompts.length > REPLAY_TURNS ? prompts[prompts.length - REPLAY_TURNS] : 0;
  if (from > 0) {
    const earlier = prompts.length - REPLAY_TURNS;
    stderr.write(`${colors.dim(`… ${countOf(earlier, "earlier turn")}`)}\n`);
  }
  const renderer = new TerminalRenderer({ ...target, replies: "stream", showTrace: true });
  for (const message of messages.slice(from)) {
    for (const event of replayEvents(message, target.describe)) renderer.handle(event);
    if (message.role === "user") {
      // The person's words as they typed them; what hooks added after them is named, not shown as theirs.
      const { said, added } = splitHookContext(textOf(message));
      stderr.write(`${colors.bold("> ")}${clip(said.trim())}\n`);
      if (added.length > 0) stderr.write(`${colors.dim(`  + context from ${[...new Set(added)].join(", ")}`)}\n`);
    }
    if (message.role === "assistant" && message.stopReason === "aborted")
      stderr.write(`${colors.yellow("interrupted")}\n`);
  }
}

/** The live events a stored message stands for (a prompt is drawn by the caller: the renderer never drew one). */
function replayEvents(message: Message, describe: ReplayTarget["describe"]): AgentEvent[] {
  switch (message.role) {
    case "user":
      return [];
    case "assistant": {
      const text = textOf(message);
      return [
        ...(text ? [{ type: "text_delta" as const, text }] : []),
        { type: "message", message },
        ...toolCallsOf(message).map((call) => ({
          type: "tool_start" as const,
          id: call.id,
          name: call.name,
          arguments: call.arguments,
          summary: describe(call),
        })),
      ];
    }
    case "tool": {
      const diff = message.isError ? undefined : diffIn(message.content);
      return [
        {
          type: "tool_end",
          id: message.toolCallId,
          name: message.toolName,
          content: message.content,
          isError: message.isError,
          ...(diff ? { diff } : {}),
          durationMs: 0,
        },
      ];
    }
    default:
      return assertNever(message);
  }
}

/** The unified diff a result's text ends with (edit_file's: `Edited x.ts (1 replacement):` then the diff), if any. */
function diffIn(content: string): string | undefined {
  const start = content.search(/^--- (a\/|\/dev\/null).*\n\+\+\+ b\/.*\n@@ /m);
  return start >= 0 ? content.slice(start) : undefined;
}

function clip(text: string): string {
  const lines = text.split("\n");
  return lines.length > REPLAY_PROMPT_LINES
    ? [...lines.slice(0, REPLAY_PROMPT_LINES), `  … ${lines.length - REPLAY_PROMPT_LINES} more lines`].join("\n")
    : text;
}
