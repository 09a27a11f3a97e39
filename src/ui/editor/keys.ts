// Raw terminal input bytes to key presses: control keys, escape sequences, bracketed paste.

/** What one key press (or one paste) means to the line editor. */
export type Key =
  | { name: "text"; text: string }
  | { name: "paste"; text: string }
  /** `isInBurst`: more input arrived in the same read, as when a terminal without bracketed paste pastes lines. */
  | { name: "enter"; isInBurst: boolean }
  | { name: KeyName };

type KeyName =
  | "newline"
  | "escape"
  | "tab"
  | "shift-tab"
  | "backspace"
  | "delete"
  | "word-backspace"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "ctrl-a"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-e"
  | "ctrl-g"
  | "ctrl-k"
  | "ctrl-l"
  | "ctrl-r"
  | "ctrl-u"
  | "ctrl-w";

export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";

const CONTROL_KEYS: Record<string, KeyName> = {
  "\n": "newline",
  "\t": "tab",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x01": "ctrl-a",
  "\x02": "left",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x05": "ctrl-e",
  "\x06": "right",
  "\x07": "ctrl-g",
  "\x0b": "ctrl-k",
  "\x0c": "ctrl-l",
  "\x0e": "down",
  "\x10": "up",
  "\x12": "ctrl-r",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
};

/** CSI and SS3 sequences by their parameters and final byte. */
const SEQUENCES: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  "1~": "home",
  "7~": "home",
  "4~": "end",
  "8~": "end",
  "3~": "delete",
  // Shift-Tab (back-tab): every terminal sends CSI Z.
  Z: "shift-tab",
  "1;5C": "word-right",
  "1;5D": "word-left",
  "1;3C": "word-right",
  "1;3D": "word-left",
  // Shift-Enter where the terminal reports it (kitty protocol, xterm modifyOtherKeys).
  "13;2u": "newline",
  "27;2;13~": "newline",
};

const ALT_KEYS: Record<string, KeyName> = {
  "\r": "newline",
  "\n": "newline",
  b: "word-left",
  f: "word-right",
  "\x7f": "word-backspace",
};

/** Parses chunks of terminal input; keeps state across chunks (an open paste, a split sequence). */
export class KeyParser {
  private paste: string | undefined;
  private carry = "";

  parse(chunk: string): Key[] {
    const data = this.carry + chunk;
    this.carry = "";
    const keys: Key[] = [];
    let i = 0;
    while (i < data.length) {
      if (this.paste !== undefined) {
        const end = data.indexOf(PASTE_END, i);
        if (end < 0) {
          const keep = partialSuffix(data, PASTE_END);
          this.paste += data.slice(i, data.length - keep);
          this.carry = data.slice(data.length - keep);
          break;
        }
        keys.push({ name: "paste", text: this.paste + data.slice(i, end) });
        this.paste = undefined;
        i = end + PASTE_END.length;
        continue;
      }
      const char = data[i];
      if (char === "\x1b") {
        const rest = data.slice(i);
        if (rest.startsWith(PASTE_START)) {
          this.paste = "";
          i += PASTE_START.length;
          continue;
        }
        const sequence = /^\x1b(?:\[|O)([0-9;]*[~A-Za-z])/.exec(rest);
        if (sequence) {
          const name = SEQUENCES[sequence[1]];
          if (name) keys.push({ name });
          i += sequence[0].length;
          continue;
        }
        // A sequence split across reads waits for its end. A read of ESC alone is the Esc key.
        if (/^\x1b\[[0-9;]*$/.test(rest) && (rest.length > 1 || data.length > 1)) {
          this.carry = rest;
          break;
        }
        const alt = ALT_KEYS[rest[1] ?? ""];
        keys.push({ name: alt ?? "escape" });
        i += alt ? 2 : 1;
        continue;
      }
      if (char === "\r") {
        keys.push({ name: "enter", isInBurst: data.length > 1 });
        i += data[i + 1] === "\n" ? 2 : 1;
        continue;
      }
      const control = CONTROL_KEYS[char];
      if (control) {
        keys.push({ name: control });
        i++;
        continue;
      }
      let end = i;
      while (end < data.length && data[end] >= " " && data[end] !== "\x7f") end++;
      if (end === i) {
        i++; // another control byte: ignored
        continue;
      }
      keys.push({ name: "text", text: data.slice(i, end) });
      i = end;
    }
    return keys;
  }
}

/** Length of the longest tail of `data` that is the start of `marker` (a marker split across reads). */
function partialSuffix(data: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, data.length); length > 0; length--)
    if (data.endsWith(marker.slice(0, length))) return length;
  return 0;
}
