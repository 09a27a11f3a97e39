// The model's plan (the todo tool's list) on the terminal: a compact block pinned below the
// output while a turn works, erased before anything else is written and drawn again after it,
// so it stays at the bottom and redraws when the list changes. At the end of a turn it is left
// in the scrollback as it stands. Without escape sequences (NO_COLOR, TERM=dumb) it is printed
// once per change instead.
import type { TodoItem } from "../core/event-schema.ts";
import { formatTodoItem } from "../core/helpers.ts";
import type { Palette } from "./colors.ts";
import { charWidth } from "./text-width.ts";

/** Steps shown at most: the block must stay small on any terminal. */
const MAX_SHOWN_STEPS = 8;

/** The block's lines: a header with the count done, then the steps (done ones dropped first when they do not fit). */
export function formatTodoBlock(items: readonly TodoItem[], colors: Palette, columns: number): string[] {
  const done = items.filter((item) => item.status === "done").length;
  let shown = [...items];
  if (shown.length > MAX_SHOWN_STEPS) shown = shown.filter((item) => item.status !== "done");
  const hidden = items.length - Math.min(shown.length, MAX_SHOWN_STEPS);
  shown = shown.slice(0, MAX_SHOWN_STEPS);
  const style = (item: TodoItem, text: string) =>
    item.status === "done" ? colors.dim(text) : item.status === "in_progress" ? colors.bold(text) : text;
  return [
    colors.dim(`plan: ${done}/${items.length} done`),
    ...shown.map((item) => style(item, `  ${fit(formatTodoItem(item), columns - 3)}`)),
    ...(hidden > 0 ? [colors.dim(`  … ${hidden} more`)] : []),
  ];
}

/** Cut to `width` columns, so a line never wraps (the block counts its lines to erase them). */
function fit(text: string, width: number): string {
  let used = 0;
  let out = "";
  for (const char of text.replace(/[\x00-\x1f\x7f]/g, " ")) {
    used += charWidth(char);
    if (used > width - 1) return `${out}…`;
    out += char;
  }
  return out;
}

/** The pinned block on one terminal stream. */
export class TodoPanel {
  private items: readonly TodoItem[] = [];
  private drawnLines = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly colors: Palette,
    /** Whether escape sequences may move the cursor (else the list is printed once per change). */
    private readonly isPinnable: boolean,
  ) {}

  /** A new list; `atLineStart`: whether the cursor is at the start of a line (it can be drawn now). */
  update(items: readonly TodoItem[], atLineStart: boolean): void {
    this.items = items;
    if (!this.isPinnable) {
      if (atLineStart) this.stream.write(`${this.lines().join("\n")}\n`);
      return;
    }
    this.erase();
    if (atLineStart) this.draw();
  }

  /** Takes the block off the screen before something else is written. */
  erase(): void {
    if (this.drawnLines === 0) return;
    this.stream.write(`\r\x1b[${this.drawnLines}A\x1b[0J`);
    this.drawnLines = 0;
  }

  /** Puts the block back below what was written (only at the start of a line). */
  draw(): void {
    if (!this.isPinnable || this.drawnLines > 0 || this.items.length === 0) return;
    const lines = this.lines();
    this.stream.write(`${lines.join("\n")}\n`);
    this.drawnLines = lines.length;
  }

  /** The turn ended: the block stays in the scrollback as it stands; a finished plan is pinned no more. */
  leave(): void {
    this.drawnLines = 0;
    if (this.items.every((item) => item.status === "done")) this.items = [];
  }

  private lines(): string[] {
    return formatTodoBlock(this.items, this.colors, this.stream.columns || 80);
  }
}
