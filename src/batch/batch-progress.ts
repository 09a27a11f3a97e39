// Progress on stderr: on a terminal, one line redrawn in place (done, failed, running, tokens,
// cost, ETA); otherwise a plain line per finished task, for logs.

import type { Usage } from "../core/messages.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { countOf, formatCost, formatDuration, formatTokens } from "../shared/helpers.ts";
import type { TaskResult } from "./task-result.ts";

/** The bar's width in cells. */
const BAR_CELLS = 12;
/** The line is redrawn at most this often. */
const REDRAW_MS = 200;

export class BatchProgress {
  private finished = 0;
  private failed = 0;
  private tokens = 0;
  private cost = 0;
  private readonly liveTokens = new Map<string, number>();
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;

  /** `total` counts every task; `alreadyDone` of them have results from an earlier run. */
  constructor(
    private readonly stderr: NodeJS.WriteStream,
    private readonly total: number,
    private readonly alreadyDone: number,
  ) {}

  private get isTerminal(): boolean {
    return Boolean(this.stderr.isTTY);
  }

  started(id: string): void {
    this.liveTokens.set(id, 0);
    this.redraw();
  }

  /** A running task's token total so far. */
  usage(id: string, total: Usage): void {
    this.liveTokens.set(id, total.input + total.output + total.cacheRead + total.cacheWrite);
    this.redraw();
  }

  /** The task stopped without a result (requeued or interrupted). */
  stopped(id: string): void {
    this.liveTokens.delete(id);
    this.redraw();
  }

  /** The tasks running now and their tokens so far (queue mode: the workers' active jobs). */
  setRunning(running: Map<string, number>): void {
    this.liveTokens.clear();
    for (const [id, tokens] of running) this.liveTokens.set(id, tokens);
    this.redraw();
  }

  /** A task finished with a result. */
  record(result: TaskResult): void {
    this.liveTokens.delete(result.id);
    this.finished++;
    if (result.status !== "ok") this.failed++;
    this.tokens += result.tokens.input + result.tokens.output + result.tokens.cached;
    this.cost += result.cost ?? 0;
    if (this.isTerminal) this.redraw();
    else
      this.stderr.write(
        `${showControlChars(describeResult(result))} (${this.alreadyDone + this.finished}/${this.total})\n`,
      );
  }

  /** A message of its own line (rate limits, the end). */
  note(message: string): void {
    if (this.isTerminal) this.stderr.write("\r\x1b[2K");
    this.stderr.write(`${showControlChars(message)}\n`);
    this.redraw();
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.isTerminal) this.stderr.write(`\r\x1b[2K${this.line()}\n`);
  }

  private redraw(): void {
    if (!this.isTerminal || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.stderr.write(`\r\x1b[2K${this.line()}`);
    }, REDRAW_MS);
  }

  private line(): string {
    const done = this.alreadyDone + this.finished;
    const filled = this.total === 0 ? BAR_CELLS : Math.round((done / this.total) * BAR_CELLS);
    const live = [...this.liveTokens.values()].reduce((sum, n) => sum + n, 0);
    const parts = [
      `[${"█".repeat(filled)}${"░".repeat(BAR_CELLS - filled)}] ${done}/${this.total}`,
      `${this.failed} failed`,
      `${this.liveTokens.size} running`,
      `${formatTokens(this.tokens + live)} tokens`,
      formatCost(this.cost),
    ];
    const remaining = this.total - done;
    if (this.finished > 0 && remaining > 0)
      parts.push(`ETA ${formatDuration(((Date.now() - this.startedAt) / this.finished) * remaining)}`);
    return parts.join(" · ").slice(0, Math.max(20, (this.stderr.columns || 80) - 1));
  }
}

/** `ok t7 · 2 turns · 1.2k tokens · $0.0010 · 3.4s`, with the error for a task that did not succeed. */
export function describeResult(result: TaskResult): string {
  const tokens = result.tokens.input + result.tokens.output + result.tokens.cached;
  const parts = [`${result.status} ${result.id}`, countOf(result.turns, "turn"), `${formatTokens(tokens)} tokens`];
  if (result.cost !== undefined) parts.push(formatCost(result.cost));
  parts.push(formatDuration(result.durationMs));
  if (result.testExitCode !== null) parts.push(`test exit ${result.testExitCode}`);
  const line = parts.join(" · ");
  return result.error && result.status !== "ok" ? `${line}: ${result.error.split("\n")[0].slice(0, 200)}` : line;
}
