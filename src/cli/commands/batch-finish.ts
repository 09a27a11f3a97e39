// The end of `harness batch`: its closing lines and its exit code, from what the results file holds.
import { finalResults, summarize } from "../../batch/batch-summary.ts";
import type { CostBudget } from "../../batch/cost-budget.ts";
import { writePredictions } from "../../batch/predictions.ts";
import { readResults } from "../../batch/results-file.ts";
import { countOf } from "../../shared/helpers.ts";

/** The closing lines: how many tasks of the run have results, the predictions file; the exit code. */
export function finish(end: {
  outPath: string;
  runId: string;
  tasks: string[];
  budget?: CostBudget;
  aborted: boolean;
}): number {
  const ids = new Set(end.tasks);
  const results = finalResults(readResults(end.outPath), end.runId).filter((result) => ids.has(result.id));
  const summary = summarize(results);
  const counts = Object.entries(summary.byStatus)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  process.stderr.write(
    `${summary.tasks} of ${end.tasks.length} tasks have results (${counts.join(", ") || "none"}) in ${end.outPath}\n`,
  );
  if (results.length > 0) process.stderr.write(`predictions: ${writePredictions(end.outPath, end.runId, results)}\n`);
  if (end.aborted) return 130;
  const capped = results.filter((result) => result.status === "capped").length;
  if (end.budget?.signal.aborted && results.length - capped < end.tasks.length) {
    process.stderr.write(
      `harness: --max-cost $${end.budget.limit} reached ($${end.budget.spent.toFixed(4)} spent): ${end.tasks.length - results.length} tasks not run${capped > 0 ? `, ${capped} stopped (capped)` : ""}; run again with a higher --max-cost to go on\n`,
    );
    return 1;
  }
  // Never success with a task's result missing (a lost job, a result never collected): said, and a failure.
  if (results.length < end.tasks.length) {
    const missing = end.tasks.filter((id) => !results.some((result) => result.id === id));
    process.stderr.write(
      `harness: ${countOf(missing.length, "task")} ended without a result (${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""}); run the same command again to run them\n`,
    );
    return 1;
  }
  return 0;
}
