// Untrusted text on its way to the terminal (a reply, thinking, a command's output, a server's
// error, a command or file name): it loses the escape sequences and control characters it
// brought, so only our own renderer styles the screen, and OSC 52 (clipboard), OSC 0 (title) or
// CSI 2J (clear) in a tool's output do nothing. What the user judges or acts on (a tool call's
// summary, an approval question) shows them as escapes instead, since hiding a character there
// would hide what runs. File names show theirs in every tool's output (tools/paths.ts displayPath).
import { showControlChars, stripControlSequences } from "../shared/control-chars.ts";
import type { AgentEvent } from "../core/events.ts";
import { mapStrings } from "../shared/redact.ts";

/** A value (an event, messages to replay) with every string's control sequences removed. */
export function safeForTerminal<T>(value: T): T {
  return mapStrings(value, stripControlSequences);
}

/** A value with every string's control characters shown as escapes (newlines and tabs kept). */
export function visibleForTerminal<T>(value: T): T {
  return mapStrings(value, (text) => showControlChars(text, "\n\t"));
}

/** An event as the renderer may draw it: a call's description visible, everything else stripped. */
export function eventForTerminal(event: AgentEvent): AgentEvent {
  const isCall = event.type === "tool_start" || (event.type === "subagent" && event.event.type === "tool_start");
  return isCall ? visibleForTerminal(event) : safeForTerminal(event);
}
