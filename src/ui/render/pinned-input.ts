// The chat's input line while a turn runs (type-ahead shown as typed, as Claude Code and pi keep
// their input box): the last part of the pinned block, drawn BELOW the terminal cursor's row.
// That row is the status row (the spinner, the tool clock), under the pinned panels; the cursor
// stays on it, so the spinner and clock draw there as before and whatever the renderer writes
// next starts there. Erasing is then one "clear from the cursor to the end of the screen",
// however many rows the input took and however the terminal re-wrapped them after a resize:
// nothing of it can be left over. The terminal's cursor is hidden while it is drawn (it stands on
// the status row); the input shows its own cursor as an inverse cell.
import type { InputView } from "../editor/draw-input.ts";
import { graphemesOf } from "../graphemes.ts";
import { stripAnsi, visibleWidth } from "../text-width.ts";
import { setDrawnBelow } from "./pinned-lines.ts";

/** The input's rows at most, so the pinned block stays small; the rows around the cursor are the ones shown. */
const MAX_ROWS = 5;
/** Assumed size when the stream does not say. */
const DEFAULT_COLUMNS = 80;
const DEFAULT_ROWS = 24;
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

/** Styles for the drawing. */
export interface InputStyle {
  dim(text: string): string;
  inverse(text: string): string;
}

/**
 * The rows the input takes at `columns`: the lead (`prefix` on the first line, `… ` on later
 * ones) and the text broken at grapheme clusters into rows narrower than the terminal (a row
 * that filled it would leave the cursor in the pending-wrap state, and the count would be off),
 * the cursor an inverse cell. At most `maxRows`, ending at the cursor's row.
 */
export function typeAheadRows(view: InputView, columns: number, maxRows: number, style: InputStyle): string[] {
  const width = Math.max(2, columns - 1);
  const prefixWidth = visibleWidth(view.prefix);
  const continuation = style.dim(`${" ".repeat(Math.max(0, prefixWidth - 2))}… `);
  const rows: string[] = [];
  let cursorRow = 0;
  let offset = 0;
  for (const [index, line] of view.text.split("\n").entries()) {
    let row = index === 0 ? view.prefix : continuation;
    let used = index === 0 ? prefixWidth : visibleWidth(continuation);
    for (const cluster of graphemesOf(line)) {
      const shown = shownCluster(cluster);
      const clusterWidth = visibleWidth(shown);
      if (used + clusterWidth > width) {
        rows.push(row);
        row = "";
        used = 0;
      }
      const isCursor = offset === view.cursor;
      if (isCursor) cursorRow = rows.length;
      row += isCursor ? style.inverse(shown) : shown;
      used += clusterWidth;
      offset += cluster.length;
    }
    if (offset === view.cursor) {
      // The cursor after the line's last character: an inverse space, on the next row when this one is full.
      if (used + 1 > width) {
        rows.push(row);
        row = "";
      }
      cursorRow = rows.length;
      row += style.inverse(" ");
    }
    rows.push(row);
    offset += 1; // the newline
  }
  const last = Math.min(rows.length, Math.max(cursorRow + 1, maxRows));
  return rows.slice(Math.max(0, last - maxRows), last);
}

/**
 * The column the terminal's cursor stands at after `tail`, the output written since the last line
 * break, as the terminal wraps it (a wide character that does not fit goes to the next row whole).
 * Undefined where that is not known for sure: a tab (its stop), another control character, or a
 * row exactly full (the cursor then waits to wrap, a state a cursor move would lose).
 */
export function columnAfter(tail: string, columns: number): number | undefined {
  const plain = stripAnsi(tail);
  if (/[\x00-\x1f\x7f]/.test(plain)) return undefined;
  let column = 0;
  for (const cluster of graphemesOf(plain)) {
    const width = visibleWidth(cluster);
    if (column + width > columns) column = 0;
    column += width;
  }
  return column > 0 && column === columns ? undefined : column;
}

/** A cluster as drawn: a control character (a pasted tab) would move the terminal's cursor, so it shows as a space. */
function shownCluster(cluster: string): string {
  return /[\x00-\x1f\x7f]/.test(cluster) ? " " : cluster;
}

/** The input line under the status row of one terminal stream, from `open` (a turn starts) to `close`. */
export class PinnedInput {
  private isOpen = false;
  private view: InputView | undefined;
  private isDrawn = false;
  private isCursorHidden = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly style: InputStyle,
    /** Where the cursor stands on its row, so it can be put back there; undefined: the input may not be drawn now. */
    private readonly cursorColumn: () => number | undefined,
  ) {}

  /** A turn starts: the input is drawn from now on (and again after any in-place redraw above it). */
  open(): void {
    this.isOpen = true;
    setDrawnBelow(this.stream, () => this.redraw());
  }

  /** The input as it now stands (typed, edited): redrawn in place when it may be drawn now. */
  show(view: InputView): void {
    if (!this.isOpen) return;
    this.view = view;
    this.redraw();
  }

  /** Draws the input (again) where the renderer says it may go now. */
  redraw(): void {
    if (!this.isOpen) return;
    const column = this.cursorColumn();
    if (column !== undefined) this.draw(column);
  }

  /** The turn is over: the input is taken off and the terminal's cursor shown again. */
  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    setDrawnBelow(this.stream, undefined);
    this.erase();
    this.view = undefined;
    if (this.isCursorHidden) this.stream.write(SHOW_CURSOR);
    this.isCursorHidden = false;
  }

  /**
   * Draws the input below the cursor's row (clearing what was there: an older drawing of it) and
   * puts the cursor back on its row at `column`, where the renderer's next output continues.
   */
  private draw(column: number): void {
    if (!this.view) return;
    // Asked of the terminal: right after a resize the stream's own columns may not be updated yet.
    const [columns, screenRows] = this.stream.getWindowSize?.() ?? [DEFAULT_COLUMNS, DEFAULT_ROWS];
    const rows = typeAheadRows(
      this.view,
      columns || DEFAULT_COLUMNS,
      Math.max(1, Math.min(MAX_ROWS, Math.floor((screenRows || DEFAULT_ROWS) / 4))),
      this.style,
    );
    const back = `\x1b[${rows.length}A\r${column > 0 ? `\x1b[${column}C` : ""}`;
    this.stream.write(`${HIDE_CURSOR}\n\x1b[J${rows.join("\n")}${back}`);
    this.isDrawn = true;
    this.isCursorHidden = true;
  }

  /** Takes the input off the screen: everything from the cursor (where `draw` left it) down. */
  erase(): void {
    if (!this.isDrawn) return;
    this.stream.write("\x1b[J");
    this.isDrawn = false;
  }
}
