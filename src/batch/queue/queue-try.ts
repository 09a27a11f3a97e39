// One try of a queue job on this worker. Before it runs, the tries the job had before (on workers
// that died, or were stopped) become `crashed` results with what they spent, numbered as the
// attempts they were; this try is the next attempt. The job's result carries them (`earlier`),
// and the batch writes them before the final line, so each is recorded exactly once: with the
// job's one completion, however many workers died on the way.
import type { Job, Queue } from "bullmq";
import { hasSpent, lostAttemptResult, mergeCopies, type SessionSpend } from "../attempt-journal.ts";
import { MAX_ATTEMPT_NUMBER, MAX_ATTEMPTS, type RunSettings } from "../batch-run.ts";
import type { BatchTask } from "../batch-task.ts";
import type { RunTaskOptions, TaskOutcome } from "../run-task.ts";
import { runTaskAttempts } from "../task-attempts.ts";
import { stampOf, type TaskResult, taskError } from "../task-result.ts";
import type { QueueJobData } from "./queue-job.ts";
import { claimTry, QueueBudget, TryJournal } from "./queue-ledger.ts";
import type { WorkerDisk } from "./queue-reconcile.ts";

/** Tries of one job at most (workers stopped before it spent anything leave no attempt, but count here). */
const MAX_TRIES = 10;

/** A job's result when the batch's --max-cost was reached before its try began: nothing ran. */
export const NOT_RUN = { notRun: "max_cost" } as const;

/** A job's result: the final one, and the attempts lost before it. */
export interface JobResult extends TaskResult {
  earlier?: TaskResult[];
}

/** `not_run`: the batch's --max-cost was reached before this try began (nothing ran). */
export type TryOutcome = TaskOutcome | { kind: "ended"; result: JobResult } | { kind: "not_run" };

export interface TryOptions {
  queue: Queue;
  job: Job<QueueJobData, unknown>;
  data: QueueJobData;
  task: BatchTask;
  settings: RunSettings;
  run: Omit<RunTaskOptions, "runId" | "settings" | "signal" | "onSpend">;
  sessionSpend: SessionSpend;
  /** This worker's name. */
  by: string;
  /** Where this worker writes each try down on its own disk too (queue-reconcile.ts). */
  disk: WorkerDisk;
  signal: AbortSignal;
  onSpend: RunTaskOptions["onSpend"];
}

/** Runs the try; `earlier` is what the job's result must carry besides this try's own. */
export async function runJobTry(options: TryOptions): Promise<{ outcome: TryOutcome; earlier: TaskResult[] }> {
  const { queue, data, task, settings } = options;
  const jobId = options.job.id as string;
  const tries = await claimTry(queue, jobId);
  const run = { runId: data.runId, thinking: settings.thinking };
  // One line per lost try: a best-of-N try's runs each left a record, summed here (numbered by try first).
  const earlier = mergeCopies(
    tries.earlier.map(({ n, record }) => ({
      ...lostAttemptResult(
        record,
        run,
        `its worker (${record.by ?? record.host}) stopped while this attempt ran; recorded when the job came back`,
        options.sessionSpend,
      ),
      attempt: n,
    })),
  )
    .filter(hasSpent)
    .map((result, index) => ({ ...result, attempt: data.attempt + index }));
  const attempt = data.attempt + earlier.length;
  if (earlier.length >= MAX_ATTEMPTS || attempt > MAX_ATTEMPT_NUMBER || tries.n > MAX_TRIES) {
    const last: TaskResult = earlier.at(-1) ?? {
      ...taskError(task.id, stampOf(data.runId, settings.thinking), attempt, `gave up after ${tries.n - 1} tries`),
      status: "crashed",
    };
    return { outcome: { kind: "ended", result: last }, earlier: earlier.slice(0, -1) };
  }
  const budget = data.maxCost === undefined ? undefined : new QueueBudget(queue, data.runId, data.maxCost);
  const inRedis = new TryJournal(queue, jobId, tries.n);
  const journal = options.disk.journalFor(jobId, tries.n, inRedis);
  const forget = async () => {
    options.disk.forget(jobId, tries.n);
    await inRedis.forget();
  };
  try {
    await budget?.start();
    if (budget?.signal.aborted) {
      await forget();
      return { outcome: { kind: "not_run" }, earlier };
    }
    const outcome = await runTaskAttempts(task, attempt, {
      ...options.run,
      runId: data.runId,
      settings,
      signal: options.signal,
      journal,
      by: options.by,
      ...(budget ? { budget } : {}),
      onSpend: options.onSpend,
    });
    // A rate-limited try runs again as the same attempt: its record must not become a lost one.
    if (outcome.kind === "rate_limited") await forget();
    return { outcome, earlier };
  } finally {
    budget?.close();
    await inRedis.flushed();
  }
}
