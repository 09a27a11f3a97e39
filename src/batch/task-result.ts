// What one finished task left: a line of results.jsonl.

/**
 * How a task ended. `ok`: the agent finished and the test (if any) passed. `failed`: the agent's
 * run failed (API error) or the test exited non-zero. `max_turns`: the turn limit stopped it.
 * `error`: the batch could not run it (working copy, setup, the harness crashed or was killed).
 * `interrupted`: the run was interrupted from outside the batch.
 */
export type TaskStatus = "ok" | "failed" | "max_turns" | "error" | "interrupted";

export const TASK_STATUSES: readonly TaskStatus[] = ["ok", "failed", "max_turns", "error", "interrupted"];

/** Tokens of a task's whole run; `input` excludes `cached` (prompt-cache reads). */
export interface TaskTokens {
  input: number;
  output: number;
  cached: number;
}

/** One line of results.jsonl. `cost` (USD) is absent when the model's price is unknown. */
export interface TaskResult {
  id: string;
  status: TaskStatus;
  answer: string;
  turns: number;
  tokens: TaskTokens;
  cost?: number;
  durationMs: number;
  /** The test command's exit code; null when there is none or it did not run. */
  testExitCode: number | null;
  /** The task's session in $HARNESS_HOME/sessions (continue it with `harness -r <id>`). */
  sessionId: string | null;
  error?: string;
}

export const NO_TOKENS: TaskTokens = { input: 0, output: 0, cached: 0 };

/** The result of a task the batch could not run at all: nothing ran, so nothing was spent. */
export function taskError(id: string, error: string): TaskResult {
  return {
    id,
    status: "error",
    answer: "",
    turns: 0,
    tokens: { ...NO_TOKENS },
    durationMs: 0,
    testExitCode: null,
    sessionId: null,
    error,
  };
}
