// What the batch takes from a completed job. Anyone who can reach the Redis can complete a job, so
// a job's value counts only signed with the queue's key (queue-signature.ts), and then only if it
// is a result of this job: its task and run, a status from the known set, a model that is a
// string (null where no model was called), no negative spend, and one line per attempt: the
// attempts lost before the final one are `crashed`, numbered up from the job's attempt, each once.
// Anything else is refused with the reason, never written and never a crash.
import { z } from "zod";
import { describeIssues } from "../../shared/describe-issue.ts";
import type { PendingTask } from "../batch-run.ts";
import { TASK_STATUSES, type TaskResult } from "../task-result.ts";
import { verify } from "./queue-signature.ts";
import { NOT_RUN } from "./queue-try.ts";

/** More lost attempts than a job has tries (queue-try.ts) is not a job's result. */
const MAX_EARLIER = 10;
const count = z.number().finite().nonnegative();
const nullableText = z.string().nullable();
const tokens = z.object({ input: count, output: count, cached: count });

/** One result as a worker sends it; unknown fields are dropped, never written. */
const resultSchema = z.object({
  id: z.string(),
  runId: z.string(),
  status: z.enum(TASK_STATUSES),
  attempt: z.number().int().min(1),
  provider: nullableText,
  model: nullableText,
  api: nullableText,
  thinking: nullableText,
  harnessVersion: z.string(),
  answer: z.string(),
  structured_output: z.unknown().optional(),
  answeredBy: z.string().optional(),
  turns: z.number().int().nonnegative(),
  tokens,
  cost: count.optional(),
  // The call in flight at a kill or timeout, already in tokens and cost (attempt-journal.ts withInFlight).
  inFlight: z.object({ tokens, cost: count.optional(), estimated: z.boolean() }).optional(),
  durationMs: count,
  finishedAt: z.string(),
  testExitCode: z.number().int().nullable(),
  sessionId: nullableText,
  sessionPath: nullableText,
  workdir: nullableText,
  diff: nullableText,
  error: z.string().optional(),
});

const jobValueSchema = resultSchema.extend({ earlier: z.array(resultSchema).max(MAX_EARLIER).optional() });

/** A completed job's value as the batch takes it: its lines, nothing (`--max-cost` stopped it before it ran), or why it is refused. */
type JobValue = { lines: TaskResult[] } | { notRun: true } | { refused: string };

export function openJobValue(
  key: Buffer,
  jobId: string,
  value: unknown,
  pending: PendingTask,
  runId: string,
): JobValue {
  const opened = verify(key, "result", jobId, value);
  if ("refused" in opened) return opened;
  if (opened.value.notRun === NOT_RUN.notRun && Object.keys(opened.value).length === 1) return { notRun: true };
  const parsed = jobValueSchema.safeParse(opened.value);
  if (!parsed.success) return { refused: `not a result: ${describeIssues(parsed.error)}` };
  const { earlier = [], ...final } = parsed.data;
  const lines = [...earlier, final] as TaskResult[];
  for (const [index, line] of lines.entries()) {
    if (line.id !== pending.task.id) return { refused: `a result for task "${line.id}", not "${pending.task.id}"` };
    if (line.runId !== runId) return { refused: `a result of run "${line.runId}", not "${runId}"` };
    if (line.attempt !== pending.attempt + index)
      return {
        refused: `attempt ${line.attempt} where attempt ${pending.attempt + index} belongs (one line per attempt)`,
      };
    if (index < lines.length - 1 && line.status !== "crashed")
      return { refused: `an earlier attempt is "${line.status}": only the last attempt of a job ends it` };
  }
  return { lines };
}
