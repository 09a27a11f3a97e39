// A running command's last output lines (`tool_output` events), drawn dim under the tool
// clock's line and redrawn with it in place, then folded away when the call ends: its normal
// trace (the folded result) follows as before. The lines came through the terminal-safe filter
// (no escape sequences or control characters); here each is cut to the width, wide characters
// counted, so none wraps and one erase takes them all back.
import { fitWidth } from "../text-width.ts";

/** Columns before each line, under the call's summary. */
const INDENT = "  ";

export class LiveOutput {
  /** By call id: the lines its last event carried. */
  private readonly byCall = new Map<string, readonly string[]>();

  set(id: string, lines: readonly string[]): void {
    this.byCall.set(id, lines);
  }

  /** The call ended: its lines are folded (the result's trace takes their place). Every call that starts ends (tool_end). */
  end(id: string): void {
    this.byCall.delete(id);
  }

  /** The lines to draw under the clock for call `id`, each shorter than `columns`. */
  linesFor(id: string, columns: number): string[] {
    const lines = this.byCall.get(id) ?? [];
    return lines.map((line) => INDENT + fitWidth(line, Math.max(1, columns - INDENT.length - 1)));
  }
}
