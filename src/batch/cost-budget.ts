// The batch's `--max-cost`: what finished tasks spent plus what running ones have spent so far.
// Reaching it stops the running tasks (each recorded `capped`, run again when the cap is raised) and starts no more.

/** A cap on what a run's attempts spend together: this machine's (CostBudget) or the queue's (queue-ledger.ts). */
export interface RunBudget {
  readonly limit: number;
  /** Aborted once the limit is reached. */
  readonly signal: AbortSignal;
  /** A running attempt's spend so far (its key is unique per attempt). */
  update(key: string, cost: number): void;
  /** The attempt ended, having spent `cost` in all. */
  settle(key: string, cost: number): void;
}

export class CostBudget implements RunBudget {
  private finished = 0;
  private readonly running = new Map<string, number>();
  private readonly controller = new AbortController();

  /** `spentBefore`: what this run's earlier results (a resumed run's) already spent. */
  constructor(
    readonly limit: number,
    spentBefore = 0,
  ) {
    this.finished = spentBefore;
    this.check();
  }

  /** Aborted once the limit is reached. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A running attempt's spend so far (its key is unique per attempt). */
  update(key: string, cost: number): void {
    this.running.set(key, cost);
    this.check();
  }

  /** The attempt ended, having spent `cost` in all. */
  settle(key: string, cost: number): void {
    this.running.delete(key);
    this.finished += cost;
    this.check();
  }

  get spent(): number {
    return this.finished + [...this.running.values()].reduce((sum, n) => sum + n, 0);
  }

  private check(): void {
    if (this.spent >= this.limit && !this.controller.signal.aborted) this.controller.abort();
  }
}
