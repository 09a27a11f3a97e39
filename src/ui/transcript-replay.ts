// A resumed chat opens with the end of its conversation, dimmed, so the user knows where they were.
import { textOf, toolCallsOf, type Message } from "../core/messages.ts";
import type { Palette } from "./colors.ts";
import { safeForTerminal } from "./terminal-safe.ts";

/** Prompts (with what followed each) shown when a chat resumes. */
const REPLAY_TURNS = 3;
/** Lines of each reply shown; the rest is summarised. */
const REPLAY_REPLY_LINES = 6;
const REPLAY_LINE_CHARS = 160;

/** The last few turns of a conversation as dimmed text for the terminal (empty for no messages). */
export function formatReplay(untrusted: Message[], colors: Palette): string {
  const messages = safeForTerminal(untrusted);
  const prompts = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
  const from = prompts.length > REPLAY_TURNS ? prompts[prompts.length - REPLAY_TURNS] : 0;
  const lines: string[] = [];
  if (from > 0)
    lines.push(`… ${prompts.length - REPLAY_TURNS} earlier turn${prompts.length - REPLAY_TURNS === 1 ? "" : "s"}`);
  for (const message of messages.slice(from)) {
    switch (message.role) {
      case "user":
        lines.push(...clip(`> ${textOf(message).trim()}`, REPLAY_REPLY_LINES));
        break;
      case "assistant": {
        const text = textOf(message).trim();
        if (text) lines.push(...clip(text, REPLAY_REPLY_LINES));
        for (const call of toolCallsOf(message))
          lines.push(`  ${call.name} ${clipLine(call.arguments.replace(/\s+/g, " "))}`);
        if (message.stopReason === "aborted") lines.push("  (interrupted)");
        break;
      }
      case "tool":
        if (message.isError) lines.push(`  ${clipLine(message.content.split("\n")[0])}`);
        break;
    }
  }
  return lines.length > 0 ? `${colors.dim(lines.join("\n"))}\n` : "";
}

function clip(text: string, maxLines: number): string[] {
  const lines = text.split("\n").map(clipLine);
  return lines.length > maxLines ? [...lines.slice(0, maxLines), `  … ${lines.length - maxLines} more lines`] : lines;
}

function clipLine(line: string): string {
  return line.length > REPLAY_LINE_CHARS ? `${line.slice(0, REPLAY_LINE_CHARS - 1)}…` : line;
}
