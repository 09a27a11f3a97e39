// The report's chart: each run as a point, success rate (with its 95% Wilson interval as a
// whisker) against cost per task, so the better run is up and to the left. Inline SVG drawn
// here (no library, nothing fetched); it scales to the page's width.
import { formatCost } from "../shared/helpers.ts";
import { type Html, html } from "../shared/html.ts";
import { percent, type RunReport } from "./batch-compare.ts";

const [WIDTH, HEIGHT] = [640, 320];
const PLOT = { left: 56, right: 24, top: 16, bottom: 44 };
const COLORS = ["#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037", "#ad1457"];

/** USD per task of a run (every attempt), or undefined when its cost is unknown. */
export function costPerTask(run: RunReport): number | undefined {
  return run.spent === undefined || run.summary.tasks === 0 ? undefined : run.spent / run.summary.tasks;
}

export function successCostChart(runs: RunReport[]): Html {
  const plotted = runs
    .map((run, index) => ({ run, index, cost: costPerTask(run) }))
    .filter((each) => each.cost !== undefined);
  const unpriced = runs.map((run, index) => ({ run, index })).filter(({ run }) => costPerTask(run) === undefined);
  const maxCost = Math.max(...plotted.map((each) => each.cost ?? 0), 0) * 1.15 || 1;
  const [plotWidth, plotHeight] = [WIDTH - PLOT.left - PLOT.right, HEIGHT - PLOT.top - PLOT.bottom];
  const x = (cost: number) => PLOT.left + (cost / maxCost) * plotWidth;
  const y = (share: number) => PLOT.top + (1 - share) * plotHeight;
  const round = (n: number) => Number(n.toFixed(1));
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map(
    (share) =>
      html`<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${round(y(share))}" y2="${round(y(share))}" class="grid"/><text x="${PLOT.left - 6}" y="${round(y(share) + 4)}" text-anchor="end">${percent(share).replace(".0", "")}</text>`,
  );
  const xTicks = [0, 0.25, 0.5, 0.75, 1].map(
    (part) =>
      html`<text x="${round(x(part * maxCost))}" y="${HEIGHT - PLOT.bottom + 16}" text-anchor="middle">${formatCost(part * maxCost)}</text>`,
  );
  const points = plotted.map(({ run, index, cost = 0 }) => {
    const [low, high] = run.interval;
    const color = COLORS[index % COLORS.length];
    const [cx, cy] = [round(x(cost)), round(y(run.summary.successRate))];
    return html`<g class="run" data-run="${index + 1}"><title>run ${index + 1}: ${run.model} · ${percent(run.summary.successRate)} (95% CI ${percent(low)}–${percent(high)}) · ${formatCost(cost)} per task</title>
<line x1="${cx}" x2="${cx}" y1="${round(y(high))}" y2="${round(y(low))}" stroke="${color}" stroke-width="2"/>
<line x1="${cx - 5}" x2="${cx + 5}" y1="${round(y(high))}" y2="${round(y(high))}" stroke="${color}" stroke-width="2"/>
<line x1="${cx - 5}" x2="${cx + 5}" y1="${round(y(low))}" y2="${round(y(low))}" stroke="${color}" stroke-width="2"/>
<circle cx="${cx}" cy="${cy}" r="5" fill="${color}"/>
<text x="${cx + 9}" y="${cy - 6}" fill="${color}">run ${index + 1}</text></g>`;
  });
  const legend = plotted.map(
    ({ run, index }) =>
      html`<li><span class="swatch" style="background:${COLORS[index % COLORS.length]}"></span>run ${index + 1}: ${run.model}</li>`,
  );
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="success rate against cost per task, one point per run">
${yTicks}${xTicks}
<line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${HEIGHT - PLOT.bottom}" class="axis"/>
<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${HEIGHT - PLOT.bottom}" y2="${HEIGHT - PLOT.bottom}" class="axis"/>
<text x="${PLOT.left + plotWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle">cost per task (every attempt)</text>
${points}</svg>
<figcaption>Success rate (whiskers: 95% Wilson interval) against cost per task; up and to the left is better.
<ul class="legend">${legend}</ul>${unpriced.length > 0 ? html`<p>Not drawn (cost unknown): ${unpriced.map(({ run, index }) => `run ${index + 1}: ${run.model}`).join(", ")}.</p>` : ""}</figcaption></figure>`;
}
