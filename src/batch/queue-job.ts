// What a queue job carries, and how a worker decides whether to run it. Anyone who can write to
// the Redis can push a job, so a worker trusts nothing in it: the job is checked against the
// task schema (no unknown keys), the settings that decide where the worker's keys go (provider,
// model, base URL) are the worker's own or must be on its allowlist, and a task may not run in
// the root or a home folder.
import { z } from "zod";
import { describeIssues } from "../shared/describe-issue.ts";
import { MAX_ATTEMPTS, type RunSettings } from "./batch-run.ts";
import { queuedTaskSchema, type BatchTask } from "./batch-task.ts";
import { isForbiddenWorkspace } from "./working-copy.ts";

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
  attempt: z.number().int().min(1).max(MAX_ATTEMPTS),
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

/** What a worker sets for itself: its own settings, and which models (globs) a job may choose. */
export interface WorkerPolicy {
  settings: RunSettings;
  allowModels: string[];
  home: string;
}

/** A job this worker will not run; the message says why (it becomes the task's error). */
export class JobRefused extends Error {
  override name = "JobRefused";
}

/**
 * The task and settings to run a job with, or JobRefused. The worker's own settings win; a model
 * or provider the job names must be the worker's or match `allowModels` (`*` wildcards; a
 * provider is allowed as `provider/*` or `provider/model`); api, thinking and maxTurns are taken
 * from the job only where the worker sets none (they cannot redirect a key or run code).
 */
export function acceptJob(
  data: unknown,
  policy: WorkerPolicy,
): { job: QueueJobData; task: BatchTask; settings: RunSettings } {
  const parsed = jobSchema.safeParse(data);
  if (!parsed.success) throw new JobRefused(`not a valid job: ${describeIssues(parsed.error)}`);
  const job = parsed.data;
  const { task, request } = job;
  if (task.cwd && isForbiddenWorkspace(task.cwd, policy.home))
    throw new JobRefused(`cwd ${task.cwd} is the root or a home folder (or holds one): no task runs there`);
  const own = policy.settings;
  const provider = task.provider ?? request.provider;
  const model = task.model ?? request.model;
  if (
    provider !== undefined &&
    provider !== own.provider &&
    !isAllowed(policy.allowModels, `${provider}/${model ?? ""}`)
  )
    throw new JobRefused(`provider "${provider}" is not this worker's${hint(policy)}`);
  if (model !== undefined && model !== own.model && !isAllowed(policy.allowModels, model, provider))
    throw new JobRefused(`model "${model}" is not on this worker's --allow-models${hint(policy)}`);
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

function isAllowed(patterns: string[], value: string, provider?: string): boolean {
  const candidates = provider ? [value, `${provider}/${value}`] : [value];
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.split("*").map(escapeRegex).join(".*")}$`);
    return candidates.some((candidate) => regex.test(candidate));
  });
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

function hint(policy: WorkerPolicy): string {
  return policy.allowModels.length > 0
    ? ` (allowed: ${policy.allowModels.join(", ")})`
    : "; start the worker with --model, or --allow-models to let batches choose";
}
