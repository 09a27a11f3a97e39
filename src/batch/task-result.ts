// What one finished task left: a line of results.jsonl.
import type { Usage } from "../core/messages.ts";
import { VERSION } from "../shared/version.ts";

/**
 * How a task ended. `ok`: the agent finished and the test (if any) passed. `failed`: the agent's
 * run failed (API error) or the test exited non-zero. `max_turns`: the turn limit stopped it.
 * `timeout`: its `timeout` (wall clock) ran out. `max_cost`: its own `maxCost` was reached.
 * `capped`: the batch's `--max-cost` stopped it, not the model: a later run with a higher cap runs
 * it again (batch-run.ts), and reports count it apart from the model's failures. `crashed`: its harness was killed or crashed (out of memory, a
 * signal from outside); a later run of the same batch tries it again, a bounded number of times.
 * `error`: the batch could not run it (working copy, setup, the harness would not start).
 * `interrupted`: the run was interrupted from outside the batch.
 */
export type TaskStatus =
  | "ok"
  | "failed"
  | "max_turns"
  | "timeout"
  | "max_cost"
  | "capped"
  | "crashed"
  | "error"
  | "interrupted";

export const TASK_STATUSES: readonly TaskStatus[] = [
  "ok",
  "failed",
  "max_turns",
  "timeout",
  "max_cost",
  "capped",
  "crashed",
  "error",
  "interrupted",
];

/** Tokens of a task's whole run; `input` excludes `cached` (prompt-cache reads). */
export interface TaskTokens {
  input: number;
  output: number;
  cached: number;
}

/** Who ran a task: the batch run and the settings its harness used (null where it never said). */
export interface RunStamp {
  /** The batch run this result belongs to (see batch-run.ts). */
  runId: string;
  provider: string | null;
  model: string | null;
  /** The wire API the model was called over (`chat`, `responses`, ...). */
  api: string | null;
  /** `--thinking` as given to the batch; null when the provider's default was used. */
  thinking: string | null;
  /** The version of the harness that ran the task (a worker's own, in queue mode). */
  harnessVersion: string;
}

/** One line of results.jsonl. `cost` (USD) is absent when the model's price is unknown. */
export interface TaskResult extends RunStamp {
  id: string;
  status: TaskStatus;
  /** 1 for the first try of the task in this run, 2 after a crash, ... */
  attempt: number;
  answer: string;
  /** With the task's `outputSchema`: the answer, validated against it (absent when the run gave none). */
  structured_output?: unknown;
  /** The model that made the run's last call: another than `model` when the run fell back (--fallback-model). */
  answeredBy?: string;
  turns: number;
  tokens: TaskTokens;
  cost?: number;
  durationMs: number;
  /** When the task ended, ISO 8601. */
  finishedAt: string;
  /** The test command's exit code; null when there is none or it did not run. */
  testExitCode: number | null;
  /** The task's session in $HARNESS_HOME/sessions (continue it with `harness -r <id>`). */
  sessionId: string | null;
  /** That session's file, on the machine that ran the task. */
  sessionPath: string | null;
  /** The working copy the task ran in. */
  workdir: string | null;
  /** What the task changed in its working copy (`git diff` against where it started); null when unknown. */
  diff: string | null;
  error?: string;
  /**
   * The model call its harness had in flight when a timeout, a cap or a kill stopped it, read from
   * its session file: already in `tokens` and `cost`, shown apart; `estimated` when some of it is
   * (docs/batch.md, "The call in flight").
   */
  inFlight?: InFlight;
  /**
   * A task with `attempts` (best of N): every attempt, in order. The line's other fields are the
   * picked attempt's (the first's when none passed), except `tokens` and `cost`, the sum of all.
   */
  attempts?: AttemptSummary[];
  /** Which of `attempts` was picked (1-based); null when none passed. */
  picked?: number | null;
}

/** One attempt of a best-of-N task, as its result line lists it. */
export interface AttemptSummary {
  status: TaskStatus;
  testExitCode: number | null;
  /** Lines added and removed in its working copy. */
  changedLines: number;
  tokens: TaskTokens;
  cost?: number;
  durationMs: number;
  sessionId: string | null;
  workdir: string | null;
  error?: string;
}

/** The spend of a model call that never completed. */
export interface InFlight {
  tokens: TaskTokens;
  cost?: number;
  estimated: boolean;
}

export const NO_TOKENS: TaskTokens = { input: 0, output: 0, cached: 0 };

/** A result's stamp before its harness said which provider, model and API it used. */
export function stampOf(runId: string, thinking: string | undefined): RunStamp {
  return { runId, provider: null, model: null, api: null, thinking: thinking ?? null, harnessVersion: VERSION };
}

/** The result of a task the batch could not run at all: nothing ran, so nothing was spent. */
export function taskError(id: string, stamp: RunStamp, attempt: number, error: string): TaskResult {
  return {
    id,
    status: "error",
    ...stamp,
    attempt,
    answer: "",
    turns: 0,
    tokens: { ...NO_TOKENS },
    durationMs: 0,
    finishedAt: new Date().toISOString(),
    testExitCode: null,
    sessionId: null,
    sessionPath: null,
    workdir: null,
    diff: null,
    error,
  };
}

/** Cache writes are input the model read; `cached` is what was read back from the cache. */
export function tokensOf(usage: Usage): TaskTokens {
  return { input: usage.input + usage.cacheWrite, output: usage.output, cached: usage.cacheRead };
}
