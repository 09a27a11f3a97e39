// `harness batch --queue`: the tasks go onto a BullMQ queue in Redis, workers on any machines
// (`harness worker`) run them, and this process collects each finished job's result into
// results.jsonl. Redis and BullMQ do the queueing: locks, retries, stalled-job recovery.
import { folderNameOf, type BatchTask } from "./batch-task.ts";
import type { BatchProgress } from "./batch-progress.ts";
import { jobIdOf, loadBullmq, waitForRedis, type QueueTarget } from "./queue-target.ts";
import type { ResultsWriter } from "./results-file.ts";
import type { TaskDefaults } from "./run-task.ts";
import { taskError, type TaskResult } from "./task-result.ts";
import { countOf, sleep } from "../core/helpers.ts";

/** Times a job is tried when its worker fails it (an error of the worker, not of the task). */
const JOB_ATTEMPTS = 3;
/** The first wait before such a retry; it doubles each time. */
const JOB_BACKOFF_MS = 10_000;
/** How often the batch looks at its jobs' states. */
const POLL_MS = 500;
/** States asked of Redis at once. */
const POLL_BATCH = 200;

/** What a job carries: the task (with absolute paths) and the batch's settings for it. */
export interface QueueJobData {
  task: BatchTask;
  defaults: TaskDefaults;
  /** Times the task was sent back because of a rate limit (see the worker). */
  rateLimits?: number;
}

export interface QueueBatchOptions {
  target: QueueTarget;
  /** Tasks without a result yet. */
  tasks: BatchTask[];
  defaults: TaskDefaults;
  writer: ResultsWriter;
  progress: BatchProgress;
  /** Interrupted: stop waiting (the jobs stay queued; re-running collects them). */
  signal: AbortSignal;
}

/**
 * Enqueues the tasks (one job per task, its id derived from the task id, so enqueueing again
 * after a crash adds nothing twice: BullMQ ignores an id it already has) and writes each result
 * as its job completes, by polling the jobs' states. A job that fails for good (its worker
 * failed it `JOB_ATTEMPTS` times) is recorded as an `error` result.
 */
export async function runQueueBatch(options: QueueBatchOptions): Promise<void> {
  const { target, progress, signal } = options;
  const { Queue } = await loadBullmq();
  const queue = new Queue<QueueJobData, TaskResult>(target.name, { connection: target.connection });
  let lastError = "";
  queue.on("error", (error) => {
    if (error.message !== lastError) progress.note(`queue: ${(lastError = error.message)}`);
  });
  try {
    await waitForRedis(queue.waitUntilReady(), target);
    const outstanding = new Map(options.tasks.map((task) => [jobIdOf(folderNameOf(task.id)), task]));
    const enqueue = (jobs: Array<[string, BatchTask]>) =>
      queue.addBulk(
        jobs.map(([jobId, task]) => ({
          name: "task",
          data: { task, defaults: options.defaults },
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

    while (outstanding.size > 0 && !signal.aborted) {
      const missing: Array<[string, BatchTask]> = [];
      for (const chunk of chunks([...outstanding], POLL_BATCH)) {
        const states = await Promise.all(chunk.map(([jobId]) => queue.getJobState(jobId)));
        for (const [index, state] of states.entries()) {
          const [jobId, task] = chunk[index];
          if (state === "unknown") missing.push([jobId, task]);
          if (state !== "completed" && state !== "failed") continue;
          const job = await queue.getJob(jobId);
          if (!job) continue;
          const result =
            state === "completed" && isResult(job.returnvalue)
              ? { ...job.returnvalue, id: task.id }
              : jobFailure(task, job.failedReason, job.attemptsMade);
          options.writer.append(result);
          progress.record(result);
          outstanding.delete(jobId);
        }
      }
      // A job removed from Redis behind our back (obliterated, expired) is queued again.
      if (missing.length > 0) await enqueue(missing);
      const active = await queue.getActive();
      progress.setRunning(
        new Map(
          active
            .filter((job) => job.data?.task)
            .map((job) => [job.data.task.id, typeof job.progress === "number" ? job.progress : 0]),
        ),
      );
      await sleep(POLL_MS, signal);
    }
  } finally {
    await queue.close();
  }
}

function isResult(value: unknown): value is TaskResult {
  return Boolean(value) && typeof value === "object" && typeof (value as TaskResult).status === "string";
}

function jobFailure(task: BatchTask, reason: string | undefined, attempts: number): TaskResult {
  return taskError(task.id, `the workers failed this job ${attempts} times; last: ${reason ?? "no reason given"}`);
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
