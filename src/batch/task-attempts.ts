// A batch task with `attempts: N` (best of N, as `harness --attempts N` for one prompt): N runs of
// it at once, each one an ordinary attempt (run-task.ts) in a working copy of its own (a fresh
// clone or empty folder: `<task>`, `<task>.2`, ...), each with the task's `test`. The best is
// picked by the one-shot's rule (best-attempt.ts) and the task's one result line lists them all.

import { sumInFlight } from "./attempt-journal.ts";
import type { BatchTask } from "./batch-task.ts";
import { bestAttempt } from "./best-attempt.ts";
import { type RunTaskOptions, runTask, type TaskOutcome } from "./run-task.ts";
import type { AttemptSummary, TaskResult } from "./task-result.ts";

/** Runs the task once, or `task.attempts` times at once with the best picked. */
export async function runTaskAttempts(task: BatchTask, attempt: number, options: RunTaskOptions): Promise<TaskOutcome> {
  const count = task.attempts ?? 1;
  if (count === 1) return runTask(task, attempt, options);
  const started = Date.now();
  // Each run keeps its own record in the attempt journal (`copy`), so a batch or worker killed
  // mid-run recovers every run's spend, summed into the attempt's one crashed line.
  const outcomes = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      runTask(task, attempt, index === 0 ? options : { ...options, copy: index + 1 }),
    ),
  );
  const results: TaskResult[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === "interrupted") return outcome;
    results.push(outcome.result);
  }
  const combined = combine(results, Date.now() - started);
  // *Decision*: only when every attempt hit a rate limit does the pool run the task again later;
  // else the attempts that ran are the result (running all N again would spend them twice).
  return outcomes.every((outcome) => outcome.kind === "rate_limited")
    ? { kind: "rate_limited", result: combined }
    : { kind: "finished", result: combined };
}

/**
 * *Decision*: in a batch an attempt passes when its status is `ok` (done, and its test passed):
 * unlike the one-shot's, it need not change a file, since a task may only answer. Nothing is
 * merged: the copies are clones, not branches of the user's repository; `picked` names the one.
 */
function combine(results: TaskResult[], durationMs: number): TaskResult {
  const summaries = results.map(summaryOf);
  const best = bestAttempt(results, (result, index) => ({
    passed: result.status === "ok",
    changedLines: summaries[index]?.changedLines ?? 0,
    cost: result.cost,
  }));
  const shown = best ?? (results[0] as TaskResult);
  const costs = results.map((result) => result.cost);
  const inFlight = sumInFlight(results.map((result) => result.inFlight));
  return {
    ...shown,
    ...(inFlight ? { inFlight } : {}),
    tokens: {
      input: sum(results.map((result) => result.tokens.input)),
      output: sum(results.map((result) => result.tokens.output)),
      cached: sum(results.map((result) => result.tokens.cached)),
    },
    ...(costs.every((cost) => cost === undefined) ? {} : { cost: sum(costs.map((cost) => cost ?? 0)) }),
    durationMs,
    attempts: summaries,
    picked: best ? results.indexOf(best) + 1 : null,
  };
}

function summaryOf(result: TaskResult): AttemptSummary {
  return {
    status: result.status,
    testExitCode: result.testExitCode,
    changedLines: changedLines(result.diff),
    tokens: result.tokens,
    ...(result.cost !== undefined ? { cost: result.cost } : {}),
    durationMs: result.durationMs,
    sessionId: result.sessionId,
    workdir: result.workdir,
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}

/** Lines added and removed in a `git diff`'s text (its `+++`/`---` file headers left out). */
function changedLines(diff: string | null): number {
  if (!diff) return 0;
  return diff.split("\n").filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line)).length;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
