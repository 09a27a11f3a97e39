// `harness batch report --json`: the report's figures as one JSON document (its shape is in
// docs/batch.md, "The report as JSON"): each run summed up, each pair of runs compared task by
// task, and every task's outcome per run. Runs and pairs number runs from 1, as the text does.
import { type RunReport, taskRows } from "./batch-compare.ts";
import type { PairedComparison } from "./batch-pairs.ts";
import { totalTokens } from "./batch-summary.ts";
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED } from "./paired-stats.ts";
import { costPerTask } from "./report-chart.ts";

/** Bumped when a field changes meaning or goes; new fields may appear without it. */
const REPORT_JSON_VERSION = 1;

export function reportJson(runs: RunReport[], pairs: PairedComparison[]): string {
  const round = (n: number) => Number(n.toFixed(6));
  const pair = (each: PairedComparison) => ({
    a: each.a + 1,
    b: each.b + 1,
    tasks: each.tasks,
    onlyInA: each.onlyInA,
    onlyInB: each.onlyInB,
    ...each.counts,
    pValue: each.pValue,
    test: "McNemar exact, two-sided",
    rateA: round(each.rateA),
    rateB: round(each.rateB),
    intervalA: each.intervalA.map(round),
    intervalB: each.intervalB.map(round),
    difference: round(each.difference),
    differenceInterval: each.differenceInterval.map(round),
    differenceMethod: "Newcombe hybrid score, paired (method 10)",
    cost: each.cost && {
      tasks: each.cost.tasks,
      meanA: round(each.cost.meanA),
      meanB: round(each.cost.meanB),
      meanDifference: round(each.cost.meanDifference),
      interval: each.cost.interval.map(round),
      method: "paired bootstrap, percentile",
      resamples: BOOTSTRAP_RESAMPLES,
      seed: BOOTSTRAP_SEED,
    },
  });
  const run = (each: RunReport, index: number) => {
    const perTask = costPerTask(each);
    return {
      run: index + 1,
      runId: each.runId,
      file: each.file,
      model: each.model,
      provider: each.provider,
      api: each.api,
      thinking: each.thinking,
      harnessVersion: each.harnessVersion,
      startedAt: each.startedAt,
      ...each.summary,
      successRate: round(each.summary.successRate),
      successInterval: each.interval.map(round),
      spent: each.spent ?? null,
      costPerTask: perTask === undefined ? null : round(perTask),
      costPerSolved: each.costPerSolved ?? null,
    };
  };
  const tasks = taskRows(runs).map((row) => ({
    id: row.id,
    runs: row.cells.map((cell, index) =>
      cell
        ? {
            status: cell.status,
            error: cell.error ?? null,
            testExitCode: cell.testExitCode,
            turns: cell.turns,
            tokens: totalTokens(cell),
            cost: runs[index].taskCosts.get(row.id) ?? null,
            durationMs: cell.durationMs,
            sessionId: cell.sessionId,
          }
        : null,
    ),
  }));
  const text = JSON.stringify(
    { version: REPORT_JSON_VERSION, runs: runs.map(run), pairs: pairs.map(pair), tasks },
    null,
    2,
  );
  // JSON escapes C0 controls itself; DEL and C1 (U+009B is CSI to some terminals) are escaped too,
  // so printing someone else's results file to a terminal stays harmless. Still valid JSON.
  return `${text.replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}
