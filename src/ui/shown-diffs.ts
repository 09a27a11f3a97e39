// Diffs a person has already read in an approval question. When the write's result is that very
// diff, the trace says `+3 -1 src/x.ts` instead of drawing it a second time; a result that differs
// from what was approved (the file changed in between) is drawn in full.
import { forTerminal } from "./terminal-safe.ts";

/** Diffs remembered at most: each is forgotten when its result arrives; this bounds refused calls' ones, which never do. */
const MAX_REMEMBERED = 32;

/** Shared by the approval question (which remembers) and the renderer (which takes); one per CLI run. */
export class ShownDiffs {
  private readonly diffs: string[] = [];

  /** The diff as the question showed it (compared as the renderer gets it: control characters shown). */
  remember(diff: string): void {
    this.diffs.push(forTerminal(diff));
    if (this.diffs.length > MAX_REMEMBERED) this.diffs.shift();
  }

  /** Whether this diff was shown; it is forgotten then, so the same edit made again unasked is drawn. */
  take(diff: string): boolean {
    const index = this.diffs.indexOf(diff);
    if (index < 0) return false;
    this.diffs.splice(index, 1);
    return true;
  }
}
