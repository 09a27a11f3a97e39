// `harness batch report`: what a results file adds up to, as a table for the terminal.
import { countOf, formatCost, formatDuration, formatTokens } from "../shared/helpers.ts";
import { TASK_STATUSES, type TaskResult, type TaskStatus } from "./task-result.ts";

/** The middle, the 90th percentile, the largest and the sum of one measure over the tasks. */
export interface Spread {
  p50: number;
  p90: number;
  max: number;
  total: number;
}

/** A batch's results summed up. `cost` covers the `costKnown` tasks whose price was known. */
export interface BatchSummary {
  tasks: number;
  byStatus: Record<TaskStatus, number>;
  /** Share of tasks with status `ok`, 0..1. */
  successRate: number;
  testsRun: number;
  testsPassed: number;
  turns: Spread;
  tokens: Spread;
  cost: Spread;
  costKnown: number;
  durationMs: Spread;
}

/**
 * The final result of each task of a run: its last line (a crashed attempt's line is followed by
 * the next attempt's). Lines of other runs are left out.
 */
export function finalResults(results: TaskResult[], runId: string): TaskResult[] {
  return [...new Map(results.filter((result) => result.runId === runId).map((result) => [result.id, result])).values()];
}

/**
 * The final results summed up. Tokens and cost are each task's over all its attempts (`attempts`:
 * every line of the run, crashed ones included): what the run spent, not only what its last tries did.
 */
export function summarize(results: TaskResult[], attempts: TaskResult[] = results): BatchSummary {
  const byStatus = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<TaskStatus, number>;
  for (const result of results) byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
  const tested = results.filter((result) => result.testExitCode !== null && result.testExitCode !== undefined);
  const linesOf = new Map<string, TaskResult[]>();
  for (const line of attempts) linesOf.set(line.id, [...(linesOf.get(line.id) ?? []), line]);
  const spendOf = (result: TaskResult) => linesOf.get(result.id) ?? [result];
  const costs = results.flatMap((result) => {
    const priced = spendOf(result).filter((line) => typeof line.cost === "number");
    return priced.length > 0 ? [Number(priced.reduce((sum, line) => sum + (line.cost ?? 0), 0).toFixed(6))] : [];
  });
  return {
    tasks: results.length,
    byStatus,
    successRate: results.length === 0 ? 0 : byStatus.ok / results.length,
    testsRun: tested.length,
    testsPassed: tested.filter((result) => result.testExitCode === 0).length,
    turns: spreadOf(results.map((result) => result.turns ?? 0)),
    tokens: spreadOf(results.map((result) => spendOf(result).reduce((sum, line) => sum + totalTokens(line), 0))),
    cost: spreadOf(costs),
    costKnown: costs.length,
    durationMs: spreadOf(results.map((result) => result.durationMs ?? 0)),
  };
}

export function totalTokens(result: TaskResult): number {
  const tokens = result.tokens ?? { input: 0, output: 0, cached: 0 };
  return tokens.input + tokens.output + tokens.cached;
}

/** Nearest-rank percentiles: each is a value some task really had. */
function spreadOf(values: number[]): Spread {
  if (values.length === 0) return { p50: 0, p90: 0, max: 0, total: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
  return {
    p50: rank(50),
    p90: rank(90),
    max: sorted[sorted.length - 1],
    total: Number(values.reduce((sum, n) => sum + n, 0).toFixed(6)),
  };
}

/** The summary as aligned text for stdout. */
export function formatSummary(summary: BatchSummary): string {
  const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
  const counts = TASK_STATUSES.filter((status) => status !== "ok" && summary.byStatus[status] > 0).map(
    (status) => `${summary.byStatus[status]} ${status}`,
  );
  const lines = [
    [`${countOf(summary.tasks, "task")} · ${summary.byStatus.ok} ok (${percent(summary.successRate)})`, ...counts].join(
      " · ",
    ),
  ];
  if (summary.testsRun > 0) lines.push(`tests: ${summary.testsPassed} of ${summary.testsRun} passed`);
  const rows: Array<[string, Spread, (n: number) => string]> = [
    ["turns", summary.turns, String],
    ["tokens", summary.tokens, formatTokens],
    ["duration", summary.durationMs, formatDuration],
  ];
  if (summary.costKnown > 0) rows.splice(2, 0, ["cost", summary.cost, formatCost]);
  const table = [
    ["", "p50", "p90", "max", "total"],
    ...rows.map(([name, spread, format]) => [
      name,
      format(spread.p50),
      format(spread.p90),
      format(spread.max),
      format(spread.total),
    ]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  lines.push(
    "",
    ...table.map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
        .join("  ")
        .trimEnd(),
    ),
  );
  if (summary.costKnown > 0 && summary.costKnown < summary.tasks)
    lines.push(`cost known for ${summary.costKnown} of ${summary.tasks} tasks (the others' model has no known price)`);
  if (summary.costKnown === 0 && summary.tasks > 0)
    lines.push("cost: unknown (no task's model has a known price; set prices in config.json)");
  return `${lines.join("\n")}\n`;
}
