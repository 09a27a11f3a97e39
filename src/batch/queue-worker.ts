// `harness worker --queue ...`: takes tasks from the BullMQ queue and runs each as a child
// harness, like the local pool. BullMQ holds a lock on each job it runs and renews it while this
// process lives; a worker that dies stops renewing, and another worker's stalled-job check puts
// the job back in the queue (the "visibility timeout": HARNESS_QUEUE_LOCK_MS).
import { describeResult } from "./batch-progress.ts";
import type { HarnessCommand } from "./harness-child.ts";
import { MAX_RATE_LIMIT_REQUEUES } from "./local-pool.ts";
import type { QueueJobData } from "./queue-batch.ts";
import { loadBullmq, queueTimings, waitForRedis, type QueueTarget } from "./queue-target.ts";
import { runTask } from "./run-task.ts";
import type { TaskResult } from "./task-result.ts";
import { assertNever } from "../core/messages.ts";

/** A job that stalled (its worker died) more often than this is failed rather than retried. */
const MAX_STALLED_COUNT = 2;
/**
 * BullMQ only honours a manual rate limit (queue.rateLimit) on workers that have a limiter;
 * this one is high enough never to slow anything by itself.
 */
const LIMITER = { max: 1000, duration: 1000 };
/** The longest pause of the queue after a rate limit. */
const MAX_RATE_LIMIT_PAUSE_MS = 5 * 60_000;
/** Token counts are sent to Redis (for the batch's progress line) at most this often per job. */
const PROGRESS_EVERY_MS = 1000;

export interface QueueWorkerOptions {
  target: QueueTarget;
  concurrency: number;
  command: HarnessCommand;
  workRoot: string;
  env: NodeJS.ProcessEnv;
  /** The first pause of the whole queue after a rate limit; it doubles for each further one of a task. */
  rateLimitBackoffMs: number;
  /** One line per event worth a log (started, finished, rate limited, Redis errors). */
  log(line: string): void;
  /** Interrupted: running tasks are stopped and their jobs go back to the queue at once. */
  signal: AbortSignal;
}

/**
 * Runs jobs until interrupted. A task's own failure is its result (the job completes); a rate
 * limit pauses the whole queue (every worker) and puts the job back without using up an
 * attempt; an interrupt puts the running jobs back at once, for other workers to take.
 */
export async function runQueueWorker(options: QueueWorkerOptions): Promise<void> {
  const { target, log, signal } = options;
  const { Queue, Worker, WaitingError } = await loadBullmq();
  const queue = new Queue<QueueJobData, TaskResult>(target.name, { connection: target.connection });
  const worker = new Worker<QueueJobData, TaskResult>(
    target.name,
    async (job, token) => {
      const { task, defaults } = job.data;
      log(`started ${task.id}`);
      let lastProgressAt = 0;
      const outcome = await runTask(task, {
        command: options.command,
        defaults,
        workRoot: options.workRoot,
        env: options.env,
        signal,
        onUsage: (total) => {
          if (Date.now() - lastProgressAt < PROGRESS_EVERY_MS) return;
          lastProgressAt = Date.now();
          job.updateProgress(total.input + total.output + total.cacheRead + total.cacheWrite).catch(() => {});
        },
      });
      switch (outcome.kind) {
        case "finished":
          log(describeResult(outcome.result));
          return outcome.result;
        case "rate_limited": {
          const rateLimits = (job.data.rateLimits ?? 0) + 1;
          if (rateLimits > MAX_RATE_LIMIT_REQUEUES) {
            log(describeResult(outcome.result));
            return { ...outcome.result, error: `rate limited ${rateLimits} times; last: ${outcome.result.error}` };
          }
          const pauseMs = Math.min(options.rateLimitBackoffMs * 2 ** (rateLimits - 1), MAX_RATE_LIMIT_PAUSE_MS);
          await job.updateData({ ...job.data, rateLimits });
          await queue.rateLimit(pauseMs);
          log(`rate limited on ${task.id}: the queue pauses for ${Math.ceil(pauseMs / 1000)}s, then it runs again`);
          throw Worker.RateLimitError();
        }
        case "interrupted":
          await job.moveToWait(token);
          log(`interrupted ${task.id}: back in the queue`);
          throw new WaitingError();
        default:
          return assertNever(outcome);
      }
    },
    {
      connection: target.connection,
      concurrency: options.concurrency,
      ...queueTimings(options.env),
      maxStalledCount: MAX_STALLED_COUNT,
      limiter: LIMITER,
      autorun: false,
    },
  );
  let lastError = "";
  const onError = (error: Error) => {
    if (error.message !== lastError) log(`queue: ${(lastError = error.message)}`);
  };
  worker.on("error", onError);
  queue.on("error", onError);
  try {
    await waitForRedis(Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]), target);
    log(`waiting for tasks on ${target.display} (${options.concurrency} at once)`);
    const running = worker.run();
    await new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    // The aborted tasks' processors put their jobs back; close() waits for them to return.
    await worker.close();
    await running;
  } finally {
    await worker.close();
    await queue.close();
  }
}
