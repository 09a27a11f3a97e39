// Control characters in text that came from outside (a model's reply, a command's output, a file
// name, a server's error): a terminal obeys them (OSC 52 writes the clipboard, OSC 0 the title,
// CSI 2J clears the screen) and a newline in a file name forges a second entry in a listing.

/**
 * Escape sequences: CSI (`ESC [` or U+009B, parameters, final byte), OSC/DCS/SOS/PM/APC strings
 * (`ESC ]` or U+009D and friends, up to BEL, ST or the end of the text), and the two-character
 * ones (`ESC c` resets the terminal).
 */
const ESCAPE_SEQUENCE =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[\s\S]*?(?:\x07|\x9c|\x1b\\|$)|\x1b[ -/]*[0-~]?/g;
/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
/** Every control character, newline and tab included: none belongs in a name. */
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e" };

/** Text as harmless to print: escape sequences removed, other control characters (but tab and newline) dropped. */
export function stripControlSequences(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(/\r\n/g, "\n").replace(CONTROL, "");
}

/**
 * A name (a file, a path) with every control character shown as an escape (`a\nb`, `\e[2J`), so
 * it stays one visible entry. `keep` names characters left as they are (newline and tab in a
 * command shown for approval, where hiding a character would hide what runs).
 */
export function showControlChars(name: string, keep = ""): string {
  return name.replace(ANY_CONTROL, (char) =>
    keep.includes(char) ? char : (NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
}
