// What the chat was sent before, for Up/Down and Ctrl-R: a bounded list and a search over it.
// Plain data: line-editor.ts decides when to recall and draws what is found.

/** Entries kept for the arrows and Ctrl-R. */
export const HISTORY_SIZE = 1000;

/** Earlier inputs, oldest first, and the one Up/Down shows now. */
export class InputHistory {
  private readonly entries: string[];
  /** The entry shown, or `entries.length` for the input being typed. */
  private shown: number;
  /** What was being typed when Up first left it, given back when Down returns past the newest. */
  private draft = "";

  constructor(entries: readonly string[]) {
    this.entries = entries.slice(-HISTORY_SIZE);
    this.shown = this.entries.length;
  }

  /** Keeps a sent line (not a blank one, nor the newest again) and starts the next recall from the end. */
  add(line: string): void {
    if (line.trim() && this.entries.at(-1) !== line) this.entries.push(line);
    if (this.entries.length > HISTORY_SIZE) this.entries.shift();
    this.shown = this.entries.length;
    this.draft = "";
  }

  /** The text one entry older (-1) or newer (1) than the one shown, or undefined past either end. */
  recall(step: -1 | 1, typed: string): string | undefined {
    const next = this.shown + step;
    if (next < 0 || next > this.entries.length) return undefined;
    if (this.shown === this.entries.length) this.draft = typed;
    this.shown = next;
    return next === this.entries.length ? this.draft : this.entries[next];
  }

  /** Index of the newest entry at or before `from` that contains `query`, or -1. */
  findBackFrom(query: string, from: number): number {
    if (!query) return -1;
    for (let index = from; index >= 0; index--) if (this.entries[index].includes(query)) return index;
    return -1;
  }

  entry(index: number): string {
    return this.entries[index];
  }

  get newest(): number {
    return this.entries.length - 1;
  }
}

/** A Ctrl-R search: the query typed and the entry it matched, newest first. */
export class HistorySearch {
  private query = "";
  /** Index of the matched entry, or -1. */
  private match = -1;

  /** `original`: the input the search started from, given back when it is cancelled or finds nothing. */
  constructor(
    private readonly history: InputHistory,
    readonly original: string,
  ) {}

  type(text: string): void {
    this.query += text;
    this.match = this.history.findBackFrom(this.query, this.history.newest);
  }

  erase(): void {
    this.query = this.query.slice(0, -1);
    this.match = this.history.findBackFrom(this.query, this.history.newest);
  }

  /** Ctrl-R again: the next older match, if there is one. */
  older(): void {
    if (this.match <= 0) return;
    const older = this.history.findBackFrom(this.query, this.match - 1);
    if (older >= 0) this.match = older;
  }

  /** The matched entry, or "" while nothing matches. */
  get found(): string {
    return this.match >= 0 ? this.history.entry(this.match) : "";
  }

  /** What the input becomes when the search is accepted: the match, else the input it started from. */
  get result(): string {
    return this.match >= 0 ? this.history.entry(this.match) : this.original;
  }

  /** The line shown before the match, as bash shows it. */
  get label(): string {
    return `(history search${this.query && !this.found ? ", no match" : ""}) '${this.query}': `;
  }
}
