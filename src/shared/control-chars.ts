// Control characters in text that came from outside (a model's reply, a command's output, a file
// name, a server's error, a results file, another user's session): a terminal obeys them (OSC 52
// writes the clipboard, OSC 8 makes a link, OSC 0 the title, CSI 2J clears the screen) and a
// newline in a file name forges a second entry in a listing.
//
// *Decision*: one function, `showControlChars`, for every such text on its way to a terminal. It
// shows each control character as an escape (`\e]52;…`) instead of removing escape sequences:
// it works character by character, so a sequence split between two chunks of a stream is caught
// as surely as a whole one, and the person sees that something tried (an earlier version
// stripped whole sequences, which a split sequence slipped past).

/** C0 controls, DEL, C1 controls, and the bidirectional overrides and isolates. */
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e", "\x07": "\\a" };

/**
 * Text as harmless to print: every control character shown as an escape (`a\nb`, `\e[2J`), but
 * those in `keep`. The default keeps newline and tab (a reply, an error, a command's output; a
 * Windows line end is a plain newline there); a name (a file, a path, a session's title) passes
 * `""`, so it stays one visible entry.
 */
export function showControlChars(text: string, keep = "\n\t"): string {
  const lines = keep.includes("\n") ? text.replace(/\r\n/g, "\n") : text;
  return lines.replace(ANY_CONTROL, (char) =>
    keep.includes(char) ? char : (NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
}
