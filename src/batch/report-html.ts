// The batch report as one self-contained page (nothing fetched): it opens on the runs' summary
// (model, date, version, success rate with its interval, cost per solved task, median time), the
// runs compared task by task (report-pairs-html.ts) and the success/cost chart, then one table of
// every task with a column group per run (status and why, test, turns, tokens, cost, time, links to
// its diff and session export), tasks not ok in every run first. A small
// inline script sorts by any column and filters by text and status; without it the page still
// reads top to bottom. A thousand tasks are a thousand rows of a plain table. Made with `html`
// (every value escaped) under a policy that runs only SCRIPT (src/shared/html.ts): the results
// file may be someone else's.
import { formatCost, formatDuration, formatTokens } from "../shared/helpers.ts";
import { type Html, html, pagePolicy, trustedHtml } from "../shared/html.ts";
import { percent, type RunReport, runLabel, taskRows } from "./batch-compare.ts";
import type { PairedComparison } from "./batch-pairs.ts";
import { totalTokens } from "./batch-summary.ts";
import { successCostChart } from "./report-chart.ts";
import { linksCell, type TaskLinks } from "./report-files.ts";
import { pairsSection } from "./report-pairs-html.ts";
import type { TaskResult, TaskStatus } from "./task-result.ts";

/** A task's files in one run (0-based), where the report wrote them. */
export type LinksOf = (run: number, id: string) => TaskLinks | undefined;

const STATUS_COLORS: Record<TaskStatus, string> = {
  ok: "#2e7d32",
  failed: "#c62828",
  max_turns: "#ef6c00",
  timeout: "#ad1457",
  max_cost: "#4527a0",
  capped: "#0277bd",
  crashed: "#6d4c41",
  error: "#6a1b9a",
  interrupted: "#757575",
};

/** Sorting and filtering; rows carry `data-*` sort keys per cell, so the script knows no data. */
const SCRIPT = `
const table = document.getElementById("tasks");
const body = table.tBodies[0];
const rows = [...body.rows];
let sorted = { column: -1, descending: false };
table.tHead.addEventListener("click", (event) => {
  const th = event.target.closest("th[data-column]");
  if (!th) return;
  const column = Number(th.dataset.column);
  sorted = { column, descending: sorted.column === column ? !sorted.descending : false };
  const key = (row) => row.cells[column].dataset.v ?? row.cells[column].textContent;
  const numeric = th.dataset.numeric === "1";
  rows.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = numeric ? Number(x) - Number(y) : String(x).localeCompare(String(y), "en", { numeric: true });
    return sorted.descending ? -order : order;
  });
  body.append(...rows);
});
const text = document.getElementById("filter-text");
const status = document.getElementById("filter-status");
const count = document.getElementById("shown");
function filter() {
  const needle = text.value.toLowerCase();
  let shown = 0;
  for (const row of rows) {
    const statuses = row.dataset.statuses.split(" ");
    const wanted = status.value === "" || (status.value === "not-ok" ? statuses.some((s) => s !== "ok") : statuses.includes(status.value));
    const visible = wanted && (needle === "" || row.textContent.toLowerCase().includes(needle));
    row.hidden = !visible;
    if (visible) shown++;
  }
  count.textContent = String(shown);
}
text.addEventListener("input", filter);
status.addEventListener("change", filter);
`;

// Readable at a laptop's width (1280 px) and still whole at 800: wide tables scroll inside their
// own box, never the page; reasons and ids wrap.
const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 1.5em; color: #222; max-width: 100%; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; } td, th { padding: 2px 6px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; white-space: nowrap; }
th[data-column] { cursor: pointer; user-select: none; } th[data-column]:hover { text-decoration: underline; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.id { white-space: normal; overflow-wrap: anywhere; min-width: 8em; max-width: 16em; }
td.status { white-space: normal; min-width: 6em; max-width: 18em; }
.why { font-size: 12px; color: #555; overflow-wrap: anywhere; display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
.run-start { border-left: 2px solid #ccc; }
.controls { margin: 1em 0; } .controls > * { margin-right: 1em; }
.pairs { display: flex; flex-wrap: wrap; gap: 1em 2.5em; } .pair table td, .pair table th { border: 1px solid #ddd; }
.pair p { margin: .3em 0; max-width: 36em; } .p-value { font-weight: bold; }
figure.chart { margin: 1em 0; max-width: 640px; } figure.chart svg { width: 100%; height: auto; font: 12px system-ui, sans-serif; }
.grid { stroke: #eee; } .axis { stroke: #888; } .legend { list-style: none; padding: 0; margin: .3em 0; }
.legend li { display: inline-block; margin-right: 1.5em; } .swatch { display: inline-block; width: .8em; height: .8em; margin-right: .3em; }
`;

const COLUMNS = ["status", "test", "turns", "tokens", "cost", "time", "files"];
const NUMERIC = new Set(["test", "turns", "tokens", "cost", "time"]);

export function reportHtml(
  runs: RunReport[],
  pairs: PairedComparison[],
  title: string,
  linksOf: LinksOf = () => undefined,
): string {
  const rows = taskRows(runs);
  const statusOptions = Object.keys(STATUS_COLORS).map(
    (status) => html`<option value="${status}">${status} in some run</option>`,
  );
  const runHeadings = runs.map(
    (run, index) => html`<th colspan="${COLUMNS.length}" class="run-start">run ${index + 1}: ${run.model}</th>`,
  );
  const columnHeadings = runs.map((_, index) =>
    COLUMNS.map((name, offset) => {
      const column = 1 + index * COLUMNS.length + offset;
      const numeric = NUMERIC.has(name);
      const classes = [offset === 0 && "run-start", numeric && "n"].filter(Boolean).join(" ");
      return html`<th data-column="${column}"${numeric ? html` data-numeric="1"` : ""}${classes ? html` class="${classes}"` : ""}>${name}</th>`;
    }),
  );
  const taskLines = rows.map(
    (row) =>
      html`<tr data-statuses="${row.cells.map((cell) => cell?.status ?? "none").join(" ")}"><td class="id">${row.id}</td>${row.cells.map((cell, run) => taskCells(cell, linksOf(run, row.id)))}</tr>\n`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy([SCRIPT])}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${trustedHtml(STYLE)}</style></head>
<body>
<h1>${title}</h1>
<h2>Runs</h2>
<div class="wide">${summaryTable(runs)}</div>
${successCostChart(runs)}
${pairs.length > 0 ? pairsSection(runs, pairs) : ""}
<h2>Tasks</h2>
<div class="controls"><input id="filter-text" type="search" placeholder="filter: id, status, error…" size="30">
<select id="filter-status"><option value="">every status</option><option value="not-ok">not ok in some run</option>${statusOptions}</select>
<span><span id="shown">${rows.length}</span> of ${rows.length} tasks shown; click a heading to sort</span></div>
<div class="wide"><table id="tasks"><thead>
<tr><th></th>${runHeadings}</tr>
<tr><th data-column="0">task</th>${columnHeadings}</tr>
</thead><tbody>
${taskLines}</tbody></table></div>
<script>${trustedHtml(SCRIPT)}</script>
</body></html>
`.markup;
}

function summaryTable(runs: RunReport[]): Html {
  const line = (run: RunReport, index: number) => {
    const { summary } = run;
    const [low, high] = run.interval;
    const statuses = Object.entries(summary.byStatus)
      .filter(([status, n]) => n > 0 && status !== "ok")
      .map(([status, n]) => `${n} ${status}`)
      .join(", ");
    return html`<tr><td>run ${index + 1}</td><td>${runLabel(run)}</td><td>${run.startedAt.slice(0, 16).replace("T", " ")}</td><td>${run.harnessVersion}</td>
<td class="n">${summary.byStatus.ok} / ${summary.tasks}</td><td class="n"><b>${percent(summary.successRate)}</b> (${percent(low)}–${percent(high)})</td>
<td class="n">${summary.testsRun > 0 ? `${summary.testsPassed} / ${summary.testsRun}` : "–"}</td>
<td class="n">${run.spent === undefined ? "unknown" : formatCost(run.spent)}</td><td class="n">${run.costPerSolved === undefined ? "–" : formatCost(run.costPerSolved)}</td>
<td class="n">${formatDuration(summary.durationMs.p50)}</td><td class="n">${formatTokens(summary.tokens.total)}</td><td>${statuses}</td></tr>\n`;
  };
  return html`<table id="runs"><thead><tr><th></th><th>model (provider, API, thinking) · run id</th><th>started</th><th>harness</th><th class="n">ok</th><th class="n">success (95% CI, Wilson)</th><th class="n">tests passed</th><th class="n">cost</th><th class="n">per solved task</th><th class="n">median time</th><th class="n">tokens</th><th>other statuses</th></tr></thead>
<tbody>${runs.map(line)}</tbody></table>`;
}

function taskCells(cell: TaskResult | undefined, links: TaskLinks | undefined): Html {
  if (!cell) return html`<td class="run-start">–</td><td></td><td></td><td></td><td></td><td></td><td></td>`;
  const tokens = totalTokens(cell);
  // Why a task did not succeed, in the table itself (its first lines; the whole text on hover).
  const why =
    cell.error && cell.status !== "ok"
      ? html`<div class="why" title="${cell.error.slice(0, 2000)}">${cell.error.slice(0, 300)}</div>`
      : "";
  return html`<td class="run-start status" data-v="${cell.status}"><span style="color:${STATUS_COLORS[cell.status] ?? "#000"}">${cell.status}</span>${why}</td>\
<td class="n" data-v="${cell.testExitCode ?? -1}">${cell.testExitCode ?? "–"}</td>\
<td class="n" data-v="${cell.turns}">${cell.turns}</td>\
<td class="n" data-v="${tokens}">${formatTokens(tokens)}</td>\
<td class="n" data-v="${cell.cost ?? -1}">${typeof cell.cost === "number" ? formatCost(cell.cost) : "–"}</td>\
<td class="n" data-v="${cell.durationMs ?? 0}">${formatDuration(cell.durationMs ?? 0)}</td>${linksCell(links)}`;
}
