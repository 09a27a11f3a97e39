// `harness batch --queue`: the tasks go onto a BullMQ queue in Redis, workers on any machines
// (`harness worker`) run them, and this process collects each finished job's result into
// results.jsonl. Redis and BullMQ do the queueing: locks, retries, stalled-job recovery.

import { countOf, sleep } from "../../shared/helpers.ts";
import type { BatchProgress } from "../batch-progress.ts";
import type { PendingTask, RunSettings } from "../batch-run.ts";
import { folderNameOf } from "../batch-task.ts";
import type { CostBudget } from "../cost-budget.ts";
import type { ResultsWriter } from "../results-file.ts";
import { stampOf, type TaskResult, taskError } from "../task-result.ts";
import { type JobRequest, jobIdOf, type QueueJobData } from "./queue-job.ts";
import { runSpend, startRunSpend } from "./queue-ledger.ts";
import { type Beats, doneValue, hasLiveTry, markerOf, RECONCILE_GRACE_MS, setMarker } from "./queue-reconcile.ts";
import { openJobValue } from "./queue-result.ts";
import { LIVE_REFRESH_MS, markRunEnded, markRunLive } from "./queue-runs.ts";
import { sign } from "./queue-signature.ts";
import { loadBullmq, type QueueTarget, waitForRedis } from "./queue-target.ts";
import type { JobResult } from "./queue-try.ts";

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
  // Never a base URL: a worker takes only its own (cli/commands/batch.ts refuses --base-url with --queue).
  const { baseUrl: _, ...request }: RunSettings = options.settings;
  const asked: JobRequest = request;
  const { Queue } = await loadBullmq();
  const queue = new Queue<QueueJobData, JobResult>(target.name, { connection: target.connection });
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
          // Signed: a worker runs only jobs made with the queue's key (queue-signature.ts).
          data: sign(target.key, "job", jobId, {
            runId,
            attempt,
            task,
            request: asked,
            ...(options.budget ? { maxCost: options.budget.limit } : {}),
          }),
          opts: {
            jobId,
            attempts: JOB_ATTEMPTS,
            backoff: { type: "exponential", delay: JOB_BACKOFF_MS },
            removeOnComplete: false,
            removeOnFail: false,
          },
        })),
      );
    // The run's spend in Redis, which the workers add to after each model call; it starts at what
    // the results already hold (a resumed run's), unless workers are still counting it.
    const spentBefore = options.budget?.spent ?? 0;
    if (options.budget) await startRunSpend(queue, runId, spentBefore);
    // The marker gone later means Redis lost its state (queue-reconcile.ts).
    await setMarker(queue);
    // The run is live while this loop runs, and finished once every result is recorded (queue-runs.ts).
    await markRunLive(queue, runId, true);
    let liveAt = Date.now();
    await enqueue([...outstanding]);
    progress.note(
      `${countOf(outstanding.size, "task")} queued on ${target.display}; start workers with: harness worker --queue ${target.display}`,
    );
    let withdrawn = false;
    // Results not signed with the queue's key, or not this job's: each said, and counted at the end.
    let refused = 0;
    // When Redis was last found to have lost its state; each worker's heartbeat as last seen.
    let lostAt = 0;
    let losses = 0;
    const beats: Beats = new Map();
    // The budget as the workers see it: the run's spend in Redis, every worker's calls counted.
    const isSpent = async () => {
      if (!options.budget) return false;
      options.budget.update("queue", Math.max(0, (await runSpend(queue, runId)) - spentBefore));
      return options.budget.signal.aborted;
    };
    while (outstanding.size > 0 && !signal.aborted) {
      if (Date.now() - liveAt >= LIVE_REFRESH_MS) {
        liveAt = Date.now();
        await markRunLive(queue, runId, false);
      }
      if ((await markerOf(queue)) === null) {
        lostAt = Date.now();
        losses++;
        progress.note(
          `Redis lost the queue's state (its marker is gone: restarted empty?): the workers put back their records; in ${RECONCILE_GRACE_MS / 1000} s what is still missing is taken from their stored results, left to a live worker's running try, or queued again`,
        );
        await setMarker(queue);
        if (options.budget) await startRunSpend(queue, runId, options.budget.spent);
      }
      if ((await isSpent()) && !withdrawn) {
        withdrawn = true;
        await withdrawWaiting(queue, outstanding, progress);
      }
      const missing: Array<[string, PendingTask]> = [];
      for (const chunk of chunks([...outstanding], POLL_BATCH)) {
        const states = await Promise.all(chunk.map(([jobId]) => queue.getJobState(jobId)));
        for (const [index, state] of states.entries()) {
          const [jobId, pending] = chunk[index];
          // A job Redis lost: its worker's stored result if it finished, else wait while its try
          // runs on a live worker; else queue it again (after the grace for the workers' records).
          let stored: unknown;
          if (state === "unknown" && !withdrawn) {
            stored = await doneValue(queue, jobId);
            if (stored === undefined) {
              const now = Date.now();
              if (now - lostAt < RECONCILE_GRACE_MS || (await hasLiveTry(queue, jobId, beats, now))) continue;
              missing.push([jobId, pending]);
              continue;
            }
          } else if (state !== "completed" && state !== "failed") continue;
          const job = stored === undefined ? await queue.getJob(jobId) : undefined;
          if (stored === undefined && !job) continue;
          const value =
            stored !== undefined || state === "completed"
              ? openJobValue(target.key, jobId, stored ?? job?.returnvalue, pending, runId)
              : undefined;
          if (value && "notRun" in value) {
            await queue.remove(jobId);
            // Not run because the cap was reached: a later run with a higher --max-cost queues it
            // again. But a cap this batch has not reached is an earlier batch's (a job it left,
            // completed or still queued with its lower cap): this batch queues the task again, or
            // it would end without the task's result.
            if (await isSpent()) outstanding.delete(jobId);
            else missing.push([jobId, pending]);
            continue;
          }
          outstanding.delete(jobId);
          if (value && "refused" in value) {
            refused++;
            progress.note(`refused the result of ${pending.task.id} (job ${jobId}): ${value.refused}`);
          }
          const lines =
            value && "lines" in value
              ? value.lines
              : [
                  jobFailure(
                    pending,
                    runId,
                    options.settings,
                    value ? `its result was refused: ${value.refused}` : undefined,
                    job?.failedReason,
                    job?.attemptsMade ?? 0,
                  ),
                ];
          // In one write: a batch killed here leaves all of the job's lines or none.
          options.writer.appendAll(lines);
          for (const line of lines) progress.record(line);
        }
      }
      // A job removed from Redis behind our back (obliterated, expired), or not run under an earlier batch's cap, is queued again.
      if (missing.length > 0) await enqueue(missing);
      const active = await queue.getActive();
      progress.setRunning(
        new Map(
          // Named by our own record of the job, not by its data in Redis (anyone may write that).
          active.flatMap((job) => {
            const pending = outstanding.get(job.id ?? "");
            return pending ? [[pending.task.id, typeof job.progress === "number" ? job.progress : 0] as const] : [];
          }),
        ),
      );
      await sleep(POLL_MS, signal);
    }
    await markRunEnded(queue, target.key, runId, outstanding.size === 0);
    if (losses > 0)
      progress.note(`Redis lost the queue's state ${countOf(losses, "time")}; reconciled from the workers' records`);
    if (refused > 0)
      progress.note(`${countOf(refused, "result")} refused (unsigned, forged or malformed): recorded as errors`);
  } finally {
    await queue.close();
  }
}

/** The budget is spent: jobs no worker has started are removed (a later run with more budget queues them again). */
async function withdrawWaiting(
  queue: import("bullmq").Queue<QueueJobData, JobResult>,
  outstanding: Map<string, PendingTask>,
  progress: BatchProgress,
): Promise<void> {
  let count = 0;
  for (const jobId of [...outstanding.keys()]) {
    const state = await queue.getJobState(jobId);
    if (state !== "waiting" && state !== "delayed" && state !== "prioritized") continue;
    // 0: a worker took the job since its state was read (it is locked): its result is still to
    // come, and is waited for. Counted as withdrawn, it would complete as "not run" after this
    // batch ended, and the next run (same job id) would take that as its own and lose the task.
    if ((await queue.remove(jobId)) !== 1) continue;
    outstanding.delete(jobId);
    count++;
  }
  progress.note(`--max-cost reached: ${countOf(count, "queued task")} withdrawn; the running ones finish`);
}

/** The line of a job that failed for good, or whose result was refused (`refusal`). */
function jobFailure(
  pending: PendingTask,
  runId: string,
  settings: RunSettings,
  refusal: string | undefined,
  reason: string | undefined,
  attempts: number,
): TaskResult {
  return taskError(
    pending.task.id,
    stampOf(runId, settings.thinking),
    pending.attempt,
    refusal ?? `the workers failed this job ${countOf(attempts, "time")}; last: ${reason ?? "no reason given"}`,
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
