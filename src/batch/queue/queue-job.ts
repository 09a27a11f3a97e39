// What a queue job carries, and how a worker decides whether to run it. Anyone who can write to
// the Redis can push a job, so a worker trusts nothing in it: the job is checked against the
// task schema (no unknown keys), then against the worker's policy (worker-policy.ts): the
// settings that decide where the worker's keys go (provider, model, base URL) are the worker's
// own or on its allowlist, and its cwd and repo are folders and repositories the worker allows.
import { z } from "zod";
import { describeIssues } from "../../shared/describe-issue.ts";
import { MAX_ATTEMPT_NUMBER, type RunSettings } from "../batch-run.ts";
import { type BatchTask, queuedTaskSchema } from "../batch-task.ts";
import { checkModel, checkPlaces, JobRefused, type WorkerPolicy } from "../worker-policy.ts";
import type { TaskFolderCheck } from "../working-copy.ts";

/** The settings a batch may ask of a worker; never a base URL (it says where the key is sent). */
const requestSchema = z.strictObject({
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
  api: z.string().min(1).max(40).optional(),
  thinking: z.string().min(1).max(40).optional(),
  maxTurns: z.number().int().positive().optional(),
});

/** What the batch asks of the workers for its tasks. */
export type JobRequest = z.infer<typeof requestSchema>;

const jobSchema = z.strictObject({
  runId: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  attempt: z.number().int().min(1).max(MAX_ATTEMPT_NUMBER),
  task: queuedTaskSchema,
  request: requestSchema,
  /** The batch's --max-cost (USD for the whole run, on every worker: queue-ledger.ts). */
  maxCost: z.number().positive().optional(),
  /** Times the task was sent back because of a rate limit (see the worker). */
  rateLimits: z.number().int().nonnegative().optional(),
});

/** One job's data. */
export type QueueJobData = z.infer<typeof jobSchema>;

/** The job's id: one per run, task and attempt (BullMQ refuses ids that are whole numbers or hold ':'). */
export function jobIdOf(runId: string, taskFolder: string, attempt: number): string {
  return `${runId}.${taskFolder}.${attempt}`;
}

/**
 * The task and settings to run a job with, or JobRefused. Its cwd, repo and environment must be
 * allowed (checkPlaces: `check` judges the folders it writes, `judge` alone a rootfs; they come
 * back as real paths). The worker's own settings win; a model
 * or provider the job names must be the worker's or match `allowModels` (`*` wildcards; a
 * provider is allowed as `provider/*` or `provider/model`); api, thinking and maxTurns are taken
 * from the job only where the worker sets none (they cannot redirect a key or run code).
 */
export function acceptJob(
  data: unknown,
  policy: WorkerPolicy,
  check: TaskFolderCheck,
  judge: TaskFolderCheck,
): { job: QueueJobData; task: BatchTask; settings: RunSettings } {
  const parsed = jobSchema.safeParse(data);
  if (!parsed.success) throw new JobRefused(`not a valid job: ${describeIssues(parsed.error)}`);
  const job = parsed.data;
  const { request } = job;
  const task = checkPlaces(job.task, policy, check, judge);
  const own = policy.settings;
  const provider = task.provider ?? request.provider;
  const model = task.model ?? request.model;
  checkModel(policy, provider, model);
  const settings: RunSettings = {
    ...own,
    provider: provider ?? own.provider,
    model: model ?? own.model,
    api: own.api ?? request.api,
    thinking: own.thinking ?? request.thinking,
    maxTurns: own.maxTurns ?? task.maxTurns ?? request.maxTurns,
  };
  // The task's own provider/model were checked above; the child gets them from `settings`.
  return { job, task: { ...task, provider: undefined, model: undefined }, settings };
}
