// `harness worker --queue ...`: takes tasks from the BullMQ queue and runs each as a child
// harness, like the local pool. BullMQ holds a lock on each job it runs and renews it while this
// process lives; a worker that dies stops renewing, and another worker's stalled-job check puts
// the job back in the queue (the "visibility timeout": HARNESS_QUEUE_LOCK_MS). A job is checked
// before it runs (queue-job.ts, worker-policy.ts): whoever can write to the Redis must not choose
// where this worker's keys go, nor a folder or repository of this machine it was not told to allow.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { assertNever } from "../../core/messages.ts";
import { countOf } from "../../shared/helpers.ts";
import type { SessionSpend } from "../attempt-journal.ts";
import { describeResult } from "../batch-progress.ts";
import { MAX_RATE_LIMIT_REQUEUES } from "../local-pool.ts";
import type { RunTaskOptions } from "../run-task.ts";
import type { TaskResult } from "../task-result.ts";
import { folderCheckOf, JobRefused, type WorkerPolicy } from "../worker-policy.ts";
import { startHeartbeat, watchDeadWorkers } from "./dead-workers.ts";
import { acceptJob, type QueueJobData } from "./queue-job.ts";
import { doneValue, WorkerDisk, watchMarker } from "./queue-reconcile.ts";
import { sign, verify } from "./queue-signature.ts";
import { loadBullmq, type QueueTarget, queueTimings, waitForRedis } from "./queue-target.ts";
import { type JobResult, NOT_RUN, runJobTry } from "./queue-try.ts";

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
/**
 * After a stop, how long the worker waits for Redis to take its running jobs back and close. With
 * Redis gone that never happens: the worker then stops anyway (the jobs come back once their
 * locks lapse), so SIGTERM always ends it.
 */
const CLOSE_GRACE_MS = 5000;

export interface QueueWorkerOptions {
  target: QueueTarget;
  concurrency: number;
  /** How tasks run here (its taskFolder judges each job's folders too); the run id and settings come from each job, checked against `policy`. */
  run: Omit<RunTaskOptions, "runId" | "settings" | "signal" | "onSpend">;
  policy: WorkerPolicy;
  /** What a lost try's harness had spent, from its session file when it ran on this machine. */
  sessionSpend: SessionSpend;
  /** The first pause of the whole queue after a rate limit; it doubles for each further one of a task. */
  rateLimitBackoffMs: number;
  /** One line per event worth a log (started, finished, rate limited, Redis errors). */
  log(line: string): void;
  /** Interrupted: running tasks are stopped and their jobs go back to the queue at once. */
  signal: AbortSignal;
}

/**
 * Runs jobs until interrupted. A task's own failure is its result (the job completes); a job
 * this worker refuses fails for good, with the reason; a rate limit pauses the whole queue
 * (every worker) and puts the job back without using up an attempt; an interrupt puts the
 * running jobs back at once, for other workers to take.
 */
export async function runQueueWorker(options: QueueWorkerOptions): Promise<void> {
  const { target, log, signal } = options;
  const { Queue, Worker, WaitingError, UnrecoverableError } = await loadBullmq();
  // Every folder a job uses, its cwd and where its repository's objects come from, is judged and
  // must be inside an --allow-dir.
  const run = { ...options.run, taskFolder: folderCheckOf(options.policy, options.run.taskFolder) };
  const queue = new Queue<QueueJobData, TaskResult>(target.name, { connection: target.connection });
  // Each job it takes records this name, and its heartbeat goes by it (dead-workers.ts).
  const name = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  // Jobs not signed with the queue's key: refused and never run; said once, counted at the stop.
  let unsigned = 0;
  // Signed jobs this worker's policy refuses (each said with its reason): counted at the stop.
  let refused = 0;
  // Every try and final result also goes to this worker's own disk, to put back into a Redis that lost them.
  const disk = new WorkerDisk(options.run.workRoot);
  const worker = new Worker<QueueJobData, JobResult | typeof NOT_RUN>(
    target.name,
    async (job, token) => {
      const jobId = job.id as string;
      const opened = verify(target.key, "job", jobId, job.data);
      if ("refused" in opened) {
        if (unsigned++ === 0)
          log(`refused job ${jobId}: ${opened.refused}; such jobs are never run (counted; said once)`);
        throw new UnrecoverableError(`refused by the worker: ${opened.refused}`);
      }
      let accepted;
      try {
        accepted = acceptJob(opened.value, options.policy, run.taskFolder, options.run.taskFolder);
      } catch (error) {
        if (!(error instanceof JobRefused)) throw error;
        refused++;
        log(`refused job ${job.id}: ${error.message}`);
        throw new UnrecoverableError(`refused by the worker: ${error.message}`);
      }
      const { task, settings, job: data } = accepted;
      // Finished already (its completion lost with a Redis that restarted empty): sent again, not run again.
      const done = disk.done(jobId) ?? (await doneValue(queue, jobId));
      if (done && !("refused" in verify(target.key, "result", jobId, done))) {
        log(`finished ${task.id} already: its result is sent again, not run again`);
        return done as JobResult;
      }
      log(`started ${task.id}`);
      let lastProgressAt = 0;
      const { outcome, earlier } = await runJobTry({
        queue,
        job,
        data,
        task,
        settings,
        run,
        sessionSpend: options.sessionSpend,
        by: name,
        disk,
        signal,
        onSpend: ({ usage }) => {
          if (Date.now() - lastProgressAt < PROGRESS_EVERY_MS) return;
          lastProgressAt = Date.now();
          job.updateProgress(usage.input + usage.output + usage.cacheRead + usage.cacheWrite).catch(() => {});
        },
      });
      // What the batch takes from this job: signed, so no one without the key can complete it for us.
      const withEarlier = async (result: TaskResult): Promise<JobResult> => {
        const value = sign(target.key, "result", jobId, earlier.length > 0 ? { ...result, earlier } : result);
        await disk.saveDone(queue, jobId, value);
        return value;
      };
      switch (outcome.kind) {
        case "finished":
        case "ended":
          log(describeResult(outcome.result));
          return withEarlier(outcome.result);
        case "not_run":
          log(`not running ${task.id}: the batch's --max-cost was reached`);
          return sign(target.key, "result", jobId, NOT_RUN);
        case "rate_limited": {
          const rateLimits = (data.rateLimits ?? 0) + 1;
          if (rateLimits > MAX_RATE_LIMIT_REQUEUES) {
            log(describeResult(outcome.result));
            return withEarlier({
              ...outcome.result,
              error: `rate limited ${rateLimits} times; last: ${outcome.result.error}`,
            });
          }
          const pauseMs = Math.min(options.rateLimitBackoffMs * 2 ** (rateLimits - 1), MAX_RATE_LIMIT_PAUSE_MS);
          await job.updateData(sign(target.key, "job", jobId, { ...data, rateLimits }));
          await queue.rateLimit(pauseMs);
          log(`rate limited on ${task.id}: the queue pauses for ${Math.ceil(pauseMs / 1000)}s, then it runs again`);
          throw Worker.RateLimitError();
        }
        case "interrupted":
          await withinGrace(job.moveToWait(token));
          log(`interrupted ${task.id}: back in the queue`);
          throw new WaitingError();
        default:
          return assertNever(outcome);
      }
    },
    {
      connection: target.connection,
      name,
      concurrency: options.concurrency,
      ...queueTimings(process.env),
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
  let stopWatching = () => {};
  let isRedisGone = false;
  try {
    await waitForRedis(Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]), target, () => lastError);
    log(`${name} waiting for tasks on ${target.display} (${options.concurrency} at once)`);
    // Records a Redis that restarted empty lost while this worker was away (or dead) go back first.
    const restored = await disk.restore(queue).catch(() => ({ results: 0, tries: 0 }));
    if (restored.results + restored.tries > 0)
      log(`put back ${restored.results} results and ${restored.tries} tries Redis did not have, from ${disk.dir}`);
    const stopBeating = startHeartbeat(queue, name);
    const stopChecking = watchDeadWorkers(queue, name, log);
    const stopMarking = watchMarker(queue, disk, log);
    stopWatching = () => {
      stopBeating();
      stopChecking();
      stopMarking();
    };
    const running = worker.run();
    await new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    // The aborted tasks' processors put their jobs back; close() waits for them to return.
    isRedisGone = !(await withinGrace(worker.close().then(() => running)));
    if (isRedisGone) log("Redis did not answer: stopping without it (the running jobs return when their locks lapse)");
    if (unsigned > 0) log(`refused ${countOf(unsigned, "job")} not signed with this queue's key`);
    if (refused > 0) log(`refused ${countOf(refused, "job")} this worker's policy does not allow`);
  } finally {
    stopWatching();
    // With Redis gone, BullMQ's close and disconnect wait for it forever: bounded, and not waited
    // for at all once it has not answered.
    const closing = Promise.all([worker.close(true), queue.close(), worker.disconnect(), queue.disconnect()]).catch(
      () => {},
    );
    if (!isRedisGone) await withinGrace(closing);
  }
}

/** Whether `promise` settled within CLOSE_GRACE_MS (its failure counts as settled). */
async function withinGrace(promise: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
