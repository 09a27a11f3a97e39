// `harness batch --queue`: the tasks go onto a BullMQ queue in Redis, workers on any machines
// (`harness worker`) run them, and this process collects each finished job's result into
// results.jsonl. Redis and BullMQ do the queueing: locks, retries, stalled-job recovery.
import { folderNameOf } from "./batch-task.ts";
import type { BatchProgress } from "./batch-progress.ts";
import type { PendingTask, RunSettings } from "./batch-run.ts";
import type { CostBudget } from "./cost-budget.ts";
import { jobIdOf, type JobRequest, type QueueJobData } from "./queue-job.ts";
import { loadBullmq, waitForRedis, type QueueTarget } from "./queue-target.ts";
import type { ResultsWriter } from "./results-file.ts";
import { stampOf, taskError, type TaskResult } from "./task-result.ts";
import { countOf, sleep } from "../core/helpers.ts";

/** Times a job is tried when its worker fails it (an error of the worker, not of the task). */
const JOB_ATTEMPTS = 3;
/** The first wait before such a retry; it doubles each time. */
const JOB_BACKOFF_MS = 10_000;
/** How often the batch looks at its jobs' states. */
const POLL_MS = 500;
/** States asked of Redis at once. */
const POLL_BATCH = 200;

export interface QueueBatchOptions {
  target: QueueTarget;
  runId: string;
  /** Tasks without a final result in this run yet. */
  tasks: PendingTask[];
  settings: RunSettings;
  writer: ResultsWriter;
  progress: BatchProgress;
  /** The batch's --max-cost: once reached, the jobs no worker has taken yet are withdrawn. */
  budget?: CostBudget;
  /** Interrupted: stop waiting (the jobs stay queued; re-running collects them). */
  signal: AbortSignal;
}

/**
 * Enqueues the tasks, one job per run, task and attempt (so enqueueing again after a crash adds
 * nothing twice: BullMQ ignores an id it already has; another run, or a retry after a crash, has
 * ids of its own and runs again), and writes each result as its job completes, by polling the
 * jobs' states. A job that fails for good (a worker refused it, or failed it `JOB_ATTEMPTS`
 * times) is recorded as an `error` result.
 */
export async function runQueueBatch(options: QueueBatchOptions): Promise<void> {
  const { target, progress, signal, runId } = options;
  // Never a base URL: a worker takes only its own (commands/batch.ts refuses --base-url with --queue).
  const { baseUrl: _, ...request }: RunSettings = options.settings;
  const asked: JobRequest = request;
  const { Queue } = await loadBullmq();
  const queue = new Queue<QueueJobData, TaskResult>(target.name, { connection: target.connection });
  let lastError = "";
  queue.on("error", (error) => {
    if (error.message !== lastError) progress.note(`queue: ${(lastError = error.message)}`);
  });
  try {
    await waitForRedis(queue.waitUntilReady(), target, () => lastError);
    const outstanding = new Map(
      options.tasks.map((pending) => [jobIdOf(runId, folderNameOf(pending.task.id), pending.attempt), pending]),
    );
    const enqueue = (jobs: Array<[string, PendingTask]>) =>
      queue.addBulk(
        jobs.map(([jobId, { task, attempt }]) => ({
          name: "task",
          data: { runId, attempt, task, request: asked },
          opts: {
            jobId,
            attempts: JOB_ATTEMPTS,
            backoff: { type: "exponential", delay: JOB_BACKOFF_MS },
            removeOnComplete: false,
            removeOnFail: false,
          },
        })),
      );
    await enqueue([...outstanding]);
    progress.note(
      `${countOf(outstanding.size, "task")} queued on ${target.display}; start workers with: harness worker --queue ${target.display}`,
    );
    let withdrawn = false;
    while (outstanding.size > 0 && !signal.aborted) {
      if (options.budget?.signal.aborted && !withdrawn) {
        withdrawn = true;
        await withdrawWaiting(queue, outstanding, progress);
      }
      const missing: Array<[string, PendingTask]> = [];
      for (const chunk of chunks([...outstanding], POLL_BATCH)) {
        const states = await Promise.all(chunk.map(([jobId]) => queue.getJobState(jobId)));
        for (const [index, state] of states.entries()) {
          const [jobId, pending] = chunk[index];
          if (state === "unknown" && !withdrawn) missing.push([jobId, pending]);
          if (state !== "completed" && state !== "failed") continue;
          const job = await queue.getJob(jobId);
          if (!job) continue;
          const result: TaskResult =
            state === "completed" && isResult(job.returnvalue)
              ? { ...job.returnvalue, id: pending.task.id, runId, attempt: pending.attempt }
              : jobFailure(pending, runId, options.settings, job.failedReason, job.attemptsMade);
          options.writer.append(result);
          progress.record(result);
          options.budget?.settle(jobId, result.cost ?? 0);
          outstanding.delete(jobId);
        }
      }
      // A job removed from Redis behind our back (obliterated, expired) is queued again.
      if (missing.length > 0) await enqueue(missing);
      const active = await queue.getActive();
      progress.setRunning(
        new Map(
          active
            .filter((job) => job.data?.runId === runId && job.data.task)
            .map((job) => [job.data.task.id, typeof job.progress === "number" ? job.progress : 0]),
        ),
      );
      await sleep(POLL_MS, signal);
    }
  } finally {
    await queue.close();
  }
}

/** The budget is spent: jobs no worker has started are removed (a later run with more budget queues them again). */
async function withdrawWaiting(
  queue: import("bullmq").Queue<QueueJobData, TaskResult>,
  outstanding: Map<string, PendingTask>,
  progress: BatchProgress,
): Promise<void> {
  let count = 0;
  for (const jobId of [...outstanding.keys()]) {
    const state = await queue.getJobState(jobId);
    if (state !== "waiting" && state !== "delayed" && state !== "prioritized") continue;
    await queue.remove(jobId);
    outstanding.delete(jobId);
    count++;
  }
  progress.note(`--max-cost reached: ${countOf(count, "queued task")} withdrawn; the running ones finish`);
}

function isResult(value: unknown): value is TaskResult {
  return Boolean(value) && typeof value === "object" && typeof (value as TaskResult).status === "string";
}

function jobFailure(
  pending: PendingTask,
  runId: string,
  settings: RunSettings,
  reason: string | undefined,
  attempts: number,
): TaskResult {
  return taskError(
    pending.task.id,
    stampOf(runId, settings.thinking),
    pending.attempt,
    `the workers failed this job ${countOf(attempts, "time")}; last: ${reason ?? "no reason given"}`,
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
