// The model's plan (the todo tool's list) on the terminal: a compact block pinned below the
// output while a turn works, erased before anything else is written and drawn again after it,
// so it stays at the bottom and redraws when the list changes. At the end of a turn it is left
// in the scrollback as it stands. Without escape sequences (NO_COLOR, TERM=dumb) it is printed
// once per change instead.
import type { TodoItem } from "../../core/event-schema.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { formatTodoItem } from "../../shared/helpers.ts";
import type { Palette } from "../colors.ts";
import { fitWidth } from "../text-width.ts";
import { PinnedLines } from "./pinned-lines.ts";

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
    ...shown.map((item) => style(item, `  ${fitWidth(showControlChars(formatTodoItem(item), ""), columns - 3)}`)),
    ...(hidden > 0 ? [colors.dim(`  … ${hidden} more`)] : []),
  ];
}

/** Every step is done: the plan was shown as it finished, and is not shown again (a later turn, a resume, an undo). */
export function isPlanFinished(items: readonly TodoItem[]): boolean {
  return items.length > 0 && items.every((item) => item.status === "done");
}

/** The pinned block on one terminal stream. */
export class TodoPanel {
  private items: readonly TodoItem[] = [];
  private readonly pinned: PinnedLines;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly colors: Palette,
    /** Whether escape sequences may move the cursor (else the list is printed once per change). */
    private readonly isPinnable: boolean,
  ) {
    this.pinned = new PinnedLines(stream);
  }

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
    this.pinned.erase();
  }

  /** Puts the block back below what was written (only at the start of a line). */
  draw(): void {
    if (this.isPinnable && this.items.length > 0) this.pinned.draw(this.lines());
  }

  /** The session's plan before a run: pinned from the run's first output on, unless it is finished. */
  restore(items: readonly TodoItem[]): void {
    this.update(isPlanFinished(items) ? [] : items, false);
  }

  /** The turn ended: the block stays in the scrollback as it stands; a finished plan is pinned no more. */
  leave(): void {
    this.pinned.leave();
    if (isPlanFinished(this.items)) this.items = [];
  }

  private lines(): string[] {
    return formatTodoBlock(this.items, this.colors, this.stream.columns || 80);
  }
}
