// The input being edited, as plain data: its text and the cursor in it, and what each editing key
// does to them. No terminal here: line-editor.ts reads the keys and draws the result. The cursor
// moves and deletes by grapheme cluster (graphemes.ts), so it never stands inside an emoji.
import { assertNever } from "../../core/messages.ts";
import { graphemesOf, nextBoundary, previousBoundary } from "../graphemes.ts";
import { visibleWidth } from "../text-width.ts";

/** The text typed so far and the cursor's offset in it. */
export interface EditBuffer {
  readonly text: string;
  readonly cursor: number;
}

/** The keys that edit the text or move the cursor within it, and nothing else. */
export type EditKey =
  | "backspace"
  | "delete"
  | "word-backspace"
  | "ctrl-w"
  | "ctrl-u"
  | "ctrl-k"
  | "left"
  | "right"
  | "home"
  | "ctrl-a"
  | "end"
  | "ctrl-e"
  | "word-left"
  | "word-right";

/** `text` with the cursor at its end, as a recalled or restored input is shown. */
export function bufferWith(text: string): EditBuffer {
  return { text, cursor: text.length };
}

/** `inserted` typed at the cursor, which ends up after it. */
export function insertAtCursor(buffer: EditBuffer, inserted: string): EditBuffer {
  const { text, cursor } = buffer;
  return { text: text.slice(0, cursor) + inserted + text.slice(cursor), cursor: cursor + inserted.length };
}

/** The buffer after one editing key, as readline's emacs bindings do it. */
export function applyEditKey(buffer: EditBuffer, key: EditKey): EditBuffer {
  const { text, cursor } = buffer;
  switch (key) {
    case "backspace":
      return cursor === 0 ? buffer : cut(buffer, previousBoundary(text, cursor), cursor);
    case "delete":
      return cut(buffer, cursor, nextBoundary(text, cursor));
    case "word-backspace":
    case "ctrl-w":
      return cut(buffer, text.slice(0, cursor).search(/\S*\s*$/), cursor);
    case "ctrl-u":
      return cut(buffer, lineStart(buffer), cursor);
    case "ctrl-k":
      return cut(buffer, cursor, lineEnd(buffer));
    case "left":
      return moveTo(buffer, previousBoundary(text, cursor));
    case "right":
      return moveTo(buffer, nextBoundary(text, cursor));
    case "home":
    case "ctrl-a":
      return moveTo(buffer, lineStart(buffer));
    case "end":
    case "ctrl-e":
      return moveTo(buffer, lineEnd(buffer));
    case "word-left":
      return moveTo(buffer, text.slice(0, cursor).search(/\S+\s*$|$/));
    case "word-right": {
      const next = /^\s*\S+/.exec(text.slice(cursor));
      return moveTo(buffer, cursor + (next ? next[0].length : 0));
    }
    default:
      return assertNever(key);
  }
}

/** The cursor one line up or down, at the same screen column (never inside a wide character) or the end of a shorter line. */
export function moveVertically(buffer: EditBuffer, step: -1 | 1): EditBuffer {
  const { text, cursor } = buffer;
  const start = lineStart(buffer);
  const column = visibleWidth(text.slice(start, cursor));
  const target = step < 0 ? text.lastIndexOf("\n", start - 2) + 1 : lineEnd(buffer) + 1;
  const targetEnd = text.indexOf("\n", target);
  let offset = target;
  let width = 0;
  for (const cluster of graphemesOf(text.slice(target, targetEnd < 0 ? text.length : targetEnd))) {
    width += visibleWidth(cluster);
    if (width > column) break;
    offset += cluster.length;
  }
  return moveTo(buffer, offset);
}

/** The cursor is on the input's first line, where Up recalls history instead of moving. */
export function isOnFirstLine(buffer: EditBuffer): boolean {
  return lineStart(buffer) === 0;
}

/** The cursor is on the input's last line, where Down recalls history instead of moving. */
export function isOnLastLine(buffer: EditBuffer): boolean {
  return lineEnd(buffer) === buffer.text.length;
}

function cut(buffer: EditBuffer, from: number, to: number): EditBuffer {
  return { text: buffer.text.slice(0, from) + buffer.text.slice(to), cursor: from };
}

function moveTo(buffer: EditBuffer, cursor: number): EditBuffer {
  return { text: buffer.text, cursor };
}

function lineStart(buffer: EditBuffer): number {
  return buffer.text.lastIndexOf("\n", buffer.cursor - 1) + 1;
}

function lineEnd(buffer: EditBuffer): number {
  const end = buffer.text.indexOf("\n", buffer.cursor);
  return end < 0 ? buffer.text.length : end;
}
