// The batch report as one self-contained page: the summary, a chart of cost and duration per
// task (inline SVG, no script, nothing fetched), and a table of every task.
import { escapeHtml, formatCost, formatDuration, formatTokens } from "../core/helpers.ts";
import { formatSummary, summarize, totalTokens } from "./batch-report.ts";
import type { TaskResult, TaskStatus } from "./task-result.ts";

const STATUS_COLORS: Record<TaskStatus, string> = {
  ok: "#2e7d32",
  failed: "#c62828",
  max_turns: "#ef6c00",
  error: "#6a1b9a",
  interrupted: "#757575",
};
/** Chart geometry, in pixels. */
const ROW_HEIGHT = 18;
const LABEL_WIDTH = 200;
const BAR_WIDTH = 300;
const VALUE_WIDTH = 90;
const HEADER_HEIGHT = 24;

export function reportHtml(results: TaskResult[], title: string): string {
  const summary = formatSummary(summarize(results));
  const rows = results
    .map(
      (result) =>
        `<tr><td>${escapeHtml(result.id)}</td><td style="color:${STATUS_COLORS[result.status] ?? "#000"}">${escapeHtml(result.status)}</td>` +
        `<td class="n">${result.turns}</td><td class="n">${formatTokens(totalTokens(result))}</td>` +
        `<td class="n">${typeof result.cost === "number" ? formatCost(result.cost) : "–"}</td><td class="n">${formatDuration(result.durationMs ?? 0)}</td>` +
        `<td class="n">${result.testExitCode ?? "–"}</td><td>${escapeHtml((result.error ?? "").slice(0, 300))}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
pre { background: #f6f6f6; padding: 1em; }
table { border-collapse: collapse; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { margin-right: 1em; }
</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<pre>${escapeHtml(summary)}</pre>
<h2>Cost and duration per task</h2>
<p class="legend">${Object.entries(STATUS_COLORS)
    .map(([status, color]) => `<span style="color:${color}">■ ${status}</span>`)
    .join("")}</p>
${chartSvg(results)}
<h2>Tasks</h2>
<table><thead><tr><th>id</th><th>status</th><th>turns</th><th>tokens</th><th>cost</th><th>duration</th><th>test exit</th><th>error</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** One row per task: its id, a bar for its cost and one for its duration, each scaled to the largest. */
function chartSvg(results: TaskResult[]): string {
  const maxCost = Math.max(0, ...results.map((result) => result.cost ?? 0));
  const maxDuration = Math.max(0, ...results.map((result) => result.durationMs ?? 0));
  const costX = LABEL_WIDTH;
  const durationX = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH;
  const width = durationX + BAR_WIDTH + VALUE_WIDTH;
  const height = HEADER_HEIGHT + results.length * ROW_HEIGHT;
  const bar = (x: number, y: number, value: number, max: number, color: string, label: string) => {
    const length = max > 0 ? Math.max(1, (value / max) * BAR_WIDTH) : 0;
    return `<rect x="${x}" y="${y + 3}" width="${length.toFixed(1)}" height="${ROW_HEIGHT - 6}" fill="${color}"/><text x="${(x + length + 4).toFixed(1)}" y="${y + ROW_HEIGHT - 5}">${escapeHtml(label)}</text>`;
  };
  const rows = results.map((result, index) => {
    const y = HEADER_HEIGHT + index * ROW_HEIGHT;
    const color = STATUS_COLORS[result.status] ?? "#000";
    const cost =
      typeof result.cost === "number"
        ? bar(costX, y, result.cost, maxCost, color, formatCost(result.cost))
        : `<text x="${costX}" y="${y + ROW_HEIGHT - 5}">unknown</text>`;
    const id = result.id.length > 28 ? `${result.id.slice(0, 27)}…` : result.id;
    return `<g><title>${escapeHtml(`${result.id}: ${result.status}`)}</title><text x="0" y="${y + ROW_HEIGHT - 5}">${escapeHtml(id)}</text>${cost}${bar(durationX, y, result.durationMs ?? 0, maxDuration, color, formatDuration(result.durationMs ?? 0))}</g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="cost and duration per task" width="${width}" height="${height}" font-size="12" font-family="system-ui, sans-serif">
<text x="${costX}" y="14" font-weight="bold">cost (USD)</text><text x="${durationX}" y="14" font-weight="bold">duration</text>
${rows.join("\n")}
</svg>`;
}
