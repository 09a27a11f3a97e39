// The batch on this machine: a pool of at most N tasks at once, each a child harness.
// A task that fails is a result like any other; a rate limit instead slows the whole pool.

import { assertNever } from "../core/messages.ts";
import { sleep } from "../shared/helpers.ts";
import type { AttemptFiles } from "./attempt-journal.ts";
import type { BatchProgress } from "./batch-progress.ts";
import type { PendingTask } from "./batch-run.ts";
import type { ResultsWriter } from "./results-file.ts";
import type { RunTaskOptions, TaskOutcome } from "./run-task.ts";
import { runTaskAttempts } from "./task-attempts.ts";
import { stampOf, type TaskResult, taskError } from "./task-result.ts";

/** A task rate-limited this many times is recorded as failed rather than tried again. */
export const MAX_RATE_LIMIT_REQUEUES = 5;
/** The first wait before a rate-limited task runs again (it doubles for each further rate limit of the task). */
const RATE_LIMIT_BACKOFF_MS = 30_000;
/** The longest wait before a rate-limited task runs again. */
const MAX_RATE_LIMIT_BACKOFF_MS = 5 * 60_000;

export interface LocalBatchOptions {
  /** Tasks to run (those without a final result in this run yet), in order. */
  tasks: PendingTask[];
  concurrency: number;
  run: Omit<RunTaskOptions, "signal" | "onSpend">;
  writer: ResultsWriter;
  /** Each running attempt's record, cleared once its result line is written. */
  attempts: AttemptFiles;
  progress: BatchProgress;
  /** The batch was interrupted: running tasks are stopped and left unrecorded. */
  signal: AbortSignal;
  /** The first wait after a rate limit; it doubles with each further one for the same task. */
  rateLimitBackoffMs: number;
}

interface QueuedTask extends PendingTask {
  /** Not started before this time (ms since the epoch). */
  notBefore: number;
  rateLimits: number;
}

/**
 * Runs the tasks. Rate limits are handled by the pool, not by failing tasks: a task whose run
 * ended on a 429/overload (after the child's own retries) goes back to the queue with an
 * exponential backoff, and the pool's concurrency is halved (additive increase, multiplicative
 * decrease, as TCP does): each run of successes as long as the current limit raises it by one
 * again, up to `concurrency`. Resolves when every task has a result or the batch is interrupted.
 */
export async function runLocalBatch(options: LocalBatchOptions): Promise<void> {
  const { progress, signal } = options;
  const queue: QueuedTask[] = options.tasks.map((pending) => ({ ...pending, notBefore: 0, rateLimits: 0 }));
  const budget = options.run.budget?.signal;
  const running = new Set<Promise<void>>();
  let limit = options.concurrency;
  let successesSinceCut = 0;
  const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

  const record = (result: TaskResult) => {
    options.writer.append(result);
    options.attempts.remove(result.id, result.attempt);
    progress.record(result);
  };

  const settle = (pending: QueuedTask, outcome: TaskOutcome) => {
    switch (outcome.kind) {
      case "finished":
        record(outcome.result);
        if (++successesSinceCut >= limit && limit < options.concurrency) {
          limit++;
          successesSinceCut = 0;
        }
        return;
      case "rate_limited": {
        pending.rateLimits++;
        if (pending.rateLimits > MAX_RATE_LIMIT_REQUEUES) {
          record({
            ...outcome.result,
            error: `rate limited ${pending.rateLimits} times; last: ${outcome.result.error}`,
          });
          return;
        }
        const delayMs = Math.min(options.rateLimitBackoffMs * 2 ** (pending.rateLimits - 1), MAX_RATE_LIMIT_BACKOFF_MS);
        queue.push({ ...pending, notBefore: Date.now() + delayMs });
        limit = Math.max(1, Math.floor(limit / 2));
        successesSinceCut = 0;
        progress.stopped(pending.task.id);
        progress.note(
          `rate limited on ${pending.task.id}: running at most ${limit} at once for now; it runs again in ${Math.ceil(delayMs / 1000)}s`,
        );
        return;
      }
      case "interrupted":
        progress.stopped(pending.task.id);
        return;
      default:
        return assertNever(outcome);
    }
  };

  const start = (pending: QueuedTask) => {
    const { id } = pending.task;
    progress.started(id);
    const job = runTaskAttempts(pending.task, pending.attempt, {
      ...options.run,
      signal,
      journal: options.attempts,
      onSpend: (spent) => progress.usage(id, spent.usage),
    })
      .catch(
        (error: unknown): TaskOutcome => ({ kind: "finished", result: internalError(pending, options.run, error) }),
      )
      .then((outcome) => settle(pending, outcome))
      .finally(() => running.delete(job));
    running.add(job);
  };

  // Once the batch's --max-cost is reached, no more tasks start; the running ones stop themselves.
  while (!signal.aborted && ((queue.length > 0 && !budget?.aborted) || running.size > 0)) {
    const now = Date.now();
    while (running.size < limit && !budget?.aborted) {
      const index = queue.findIndex((pending) => pending.notBefore <= now);
      if (index < 0) break;
      start(queue.splice(index, 1)[0]);
    }
    const waits: Array<Promise<unknown>> = [...running, aborted];
    if (running.size < limit && queue.length > 0)
      waits.push(sleep(Math.min(...queue.map((pending) => pending.notBefore)) - now));
    await Promise.race(waits);
  }
  await Promise.all(running);
}

/** Test and CI hook: HARNESS_RETRY_BASE_MS (the loop's retry base) also shortens the batch's backoff. */
export function rateLimitBackoffFrom(env: NodeJS.ProcessEnv): number {
  const base = Number(env.HARNESS_RETRY_BASE_MS);
  return env.HARNESS_RETRY_BASE_MS && Number.isFinite(base) && base >= 0 ? base : RATE_LIMIT_BACKOFF_MS;
}

function internalError(pending: PendingTask, run: LocalBatchOptions["run"], error: unknown): TaskResult {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return taskError(
    pending.task.id,
    stampOf(run.runId, run.settings.thinking),
    pending.attempt,
    `internal error: ${message}`,
  );
}
