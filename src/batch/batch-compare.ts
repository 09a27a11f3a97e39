// `harness batch report a.jsonl b.jsonl ...`: the runs in the files, each summed up (success rate
// with its confidence interval, cost per solved task, median time), and their tasks side by side.
import { countOf, formatCost, formatDuration, formatTokens } from "../shared/helpers.ts";
import { type BatchSummary, finalResults, summarize, totalTokens } from "./batch-summary.ts";
import { wilson } from "./paired-stats.ts";
import type { TaskResult } from "./task-result.ts";

/** One run of the files: its final results and what all its attempts spent. */
export interface RunReport {
  runId: string;
  /** Where it was read from. */
  file: string;
  model: string;
  provider: string;
  api: string;
  thinking: string;
  harnessVersion: string;
  /** When its first task started (ISO 8601), as far as its results say. */
  startedAt: string;
  results: TaskResult[];
  summary: BatchSummary;
  /** The success rate's Wilson score interval (95%), 0..1. */
  interval: [number, number];
  /** USD of every attempt, crashed ones included; undefined when no price was known. */
  spent: number | undefined;
  costPerSolved: number | undefined;
  /** Each task's USD over all its attempts (crashed ones included); absent when no attempt was priced. */
  taskCosts: Map<string, number>;
}

/** The runs of each file, in file order and, within a file, by start. Results without a run id form run "-". */
export function runsOf(files: Array<{ path: string; results: TaskResult[] }>): RunReport[] {
  return files.flatMap(({ path, results }) => {
    const ids = [...new Set(results.map((result) => result.runId ?? "-"))];
    return ids.map((runId) => {
      const lines = results.filter((result) => (result.runId ?? "-") === runId);
      const final = finalResults(
        lines.map((line) => ({ ...line, runId })),
        runId,
      );
      const summary = summarize(final, lines);
      const priced = lines.filter((line) => typeof line.cost === "number");
      const taskCosts = new Map<string, number>();
      for (const line of priced) taskCosts.set(line.id, (taskCosts.get(line.id) ?? 0) + (line.cost ?? 0));
      const spent =
        priced.length > 0 ? Number(priced.reduce((sum, line) => sum + (line.cost ?? 0), 0).toFixed(6)) : undefined;
      const first = (pick: (result: TaskResult) => string | null | undefined) =>
        final.map(pick).find((value) => value) ?? "?";
      return {
        runId,
        file: path,
        model: first((result) => result.model),
        provider: first((result) => result.provider),
        api: first((result) => result.api),
        thinking: first((result) => result.thinking) === "?" ? "default" : first((result) => result.thinking),
        harnessVersion: first((result) => result.harnessVersion),
        startedAt: startOf(lines),
        results: final,
        summary,
        interval: wilson(summary.byStatus.ok, summary.tasks),
        spent,
        costPerSolved:
          spent !== undefined && summary.byStatus.ok > 0 ? Number((spent / summary.byStatus.ok).toFixed(6)) : undefined,
        taskCosts,
      };
    });
  });
}

function startOf(lines: TaskResult[]): string {
  const starts = lines
    .map((line) => Date.parse(line.finishedAt ?? "") - (line.durationMs ?? 0))
    .filter((time) => Number.isFinite(time));
  return starts.length > 0 ? new Date(Math.min(...starts)).toISOString() : "?";
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** A run's label: `fake-model (openai, chat) · run 2026...`. */
export function runLabel(run: RunReport): string {
  return `${run.model} (${run.provider}, ${run.api}, thinking ${run.thinking}) · run ${run.runId}`;
}

/** The lines heading each run in the terminal: who ran it, its rate with interval, cost, time. */
export function formatRunHeading(run: RunReport): string {
  const { summary } = run;
  const [low, high] = run.interval;
  const cost =
    run.spent === undefined
      ? "cost unknown"
      : `${formatCost(run.spent)} spent${run.costPerSolved !== undefined ? ` · ${formatCost(run.costPerSolved)} per solved task` : ""}`;
  return [
    `${runLabel(run)} · harness ${run.harnessVersion} · ${run.startedAt.slice(0, 16).replace("T", " ")} · ${run.file}`,
    `  ${summary.byStatus.ok} of ${countOf(summary.tasks, "task")} ok: ${percent(summary.successRate)} (95% CI ${percent(low)}–${percent(high)}) · ${cost} · median time ${formatDuration(summary.durationMs.p50)}`,
  ].join("\n");
}

/** A task's row: its id and, for each run, what its result was (absent: the run has none). */
export interface TaskRow {
  id: string;
  cells: Array<TaskResult | undefined>;
}

/** Every task of any run, those that did not succeed in every run first, then by id. */
export function taskRows(runs: RunReport[]): TaskRow[] {
  const byRun = runs.map((run) => new Map(run.results.map((result) => [result.id, result])));
  const ids = [...new Set(runs.flatMap((run) => run.results.map((result) => result.id)))];
  const rows = ids.map((id) => ({ id, cells: byRun.map((results) => results.get(id)) }));
  const isAllOk = (row: TaskRow) => row.cells.every((cell) => cell?.status === "ok");
  return rows.sort(
    (a, b) => Number(isAllOk(a)) - Number(isAllOk(b)) || a.id.localeCompare(b.id, "en", { numeric: true }),
  );
}

/** `ok · test 0 · 2 turns · 1.2k · $0.01 · 3.4s`, or `–` for a run without this task. */
export function describeCell(cell: TaskResult | undefined): string {
  if (!cell) return "–";
  const parts: string[] = [cell.status];
  if (cell.testExitCode !== null && cell.testExitCode !== undefined) parts.push(`test ${cell.testExitCode}`);
  parts.push(`${cell.turns}t`, formatTokens(totalTokens(cell)));
  if (typeof cell.cost === "number") parts.push(formatCost(cell.cost));
  parts.push(formatDuration(cell.durationMs ?? 0));
  return parts.join(" ");
}

/** The runs' tasks side by side, as aligned text: one row per task, one column per run. */
export function formatSideBySide(runs: RunReport[]): string {
  const header = ["task", ...runs.map((_, index) => `run ${index + 1}`)];
  const table = [header, ...taskRows(runs).map((row) => [row.id, ...row.cells.map(describeCell)])];
  return alignedTable(table);
}

/** Rows of cells as aligned text columns, two spaces apart (the first row is the header). */
export function alignedTable(table: string[][]): string {
  const widths = table[0].map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  return `${table
    .map((cells) =>
      cells
        .map((cell, column) => cell.padEnd(widths[column]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
