// Untrusted text on its way to the terminal (a reply, thinking, a command's output, a server's
// error, a command or file name): every control character it brought is shown as an escape
// (src/shared/control-chars.ts), so only our own renderer styles the screen, and OSC 52
// (clipboard), OSC 0 (title) or CSI 2J (clear) in a tool's output do nothing. File names show
// theirs in every tool's output too (tools/paths.ts displayPath).
import { showControlChars } from "../shared/control-chars.ts";
import { mapStrings } from "../shared/redact.ts";

/** A value (an event, messages to replay, an approval question) with every string's control characters shown. */
export function forTerminal<T>(value: T): T {
  return mapStrings(value, (text) => showControlChars(text));
}
