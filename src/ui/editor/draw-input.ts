// The input's drawing on a terminal, as one string of escape sequences: pure, so the editor's
// state and the terminal's wrapping rules meet only here.
import { visibleWidth } from "../text-width.ts";

/** What is drawn: a lead (the prompt, or the history search line), the text, the cursor in it. */
export interface InputView {
  prefix: string;
  text: string;
  cursor: number;
}

/** Where the input is on screen and how wide the screen is. */
export interface InputLayout {
  columns: number;
  /** Rows between the input's first row and the terminal cursor, as last drawn. */
  cursorRow: number;
  /** Dims the lead of the second and later lines. */
  dim(text: string): string;
}

/**
 * The output that draws the input from its first row down (rows below are cleared) and puts the
 * cursor in place, and the cursor's row in the input once it is written.
 */
export function drawInput(view: InputView, layout: InputLayout): { output: string; cursorRow: number } {
  const { prefix, text, cursor } = view;
  const { columns } = layout;
  const lines = text.split("\n");
  const prefixWidth = visibleWidth(prefix);
  const continuation = layout.dim(continuationFor(prefixWidth));
  const cursorLine = text.slice(0, cursor).split("\n").length - 1;
  const cursorColumn = cursor - (text.lastIndexOf("\n", cursor - 1) + 1);
  let output = `\x1b[?25l${layout.cursorRow > 0 ? `\x1b[${layout.cursorRow}A` : ""}\r\x1b[J`;
  let row = 0;
  let targetRow = 0;
  let targetColumn = 0;
  for (const [index, line] of lines.entries()) {
    const lead = index === 0 ? prefix : continuation;
    const leadWidth = index === 0 ? prefixWidth : visibleWidth(continuation);
    const width = leadWidth + visibleWidth(line);
    output += lead + line;
    if (index === cursorLine) {
      const before = leadWidth + visibleWidth(line.slice(0, cursorColumn));
      targetRow = row + Math.floor(before / columns);
      targetColumn = before % columns;
    }
    const isLast = index === lines.length - 1;
    // A line that exactly fills its last row leaves the cursor in the pending-wrap state: step down explicitly.
    if (!isLast || (width > 0 && width % columns === 0)) output += "\r\n";
    row += isLast ? Math.floor(width / columns) : Math.max(1, Math.ceil(width / columns));
  }
  output += row > targetRow ? `\x1b[${row - targetRow}A` : "";
  output += `\r${targetColumn > 0 ? `\x1b[${targetColumn}C` : ""}\x1b[?25h`;
  return { output, cursorRow: targetRow };
}

/**
 * After a resize, terminals re-wrap what is on screen, each its own way (tmux does not even keep
 * the cursor on its line), so where a wrapped input now starts is unknown. An input that fits one
 * row at both widths can be redrawn in place; a longer one is drawn afresh on a new line.
 */
export function fitsOneRowAtBoth(view: InputView, columns: number, previousColumns: number): boolean {
  const width = visibleWidth(view.prefix) + visibleWidth(view.text);
  return !view.text.includes("\n") && width < Math.min(columns, previousColumns);
}

/** The lead of the input's second and later lines, as wide as the prompt. */
function continuationFor(promptWidth: number): string {
  return `${" ".repeat(Math.max(0, promptWidth - 2))}… `;
}
