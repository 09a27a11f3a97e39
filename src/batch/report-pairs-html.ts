// The report page's paired comparison: for each pair of runs, the 2x2 table of tasks (both solved,
// only one, neither), McNemar's exact p-value, each rate and their difference with 95% intervals,
// and the cost difference with its paired bootstrap interval (figures from batch-pairs.ts).
import { formatCost } from "../shared/helpers.ts";
import { type Html, html } from "../shared/html.ts";
import { percent, type RunReport } from "./batch-compare.ts";
import { type PairedComparison, pStatement } from "./batch-pairs.ts";

const range = ([low, high]: [number, number]) => `${percent(low)}–${percent(high)}`;
const points = (share: number) => `${share >= 0 ? "+" : "−"}${Math.abs(share * 100).toFixed(1)}`;
const signedCost = (usd: number) => `${usd >= 0 ? "+" : "−"}${formatCost(Math.abs(usd))}`;

export function pairsSection(runs: RunReport[], pairs: PairedComparison[]): Html {
  return html`<h2>Task by task</h2>
<p>Each pair of runs on the tasks both ran. Only the tasks one run solved and the other did not tell the runs
apart: McNemar's exact test (two-sided) asks whether they split more unevenly than chance would.${pairs.length > 1 ? ` With ${pairs.length} pairs, p-values are not corrected for their number.` : ""}</p>
<div class="pairs">${pairs.map((pair) => pairBlock(runs, pair))}</div>`;
}

function pairBlock(runs: RunReport[], pair: PairedComparison): Html {
  const [A, B] = [`run ${pair.a + 1}`, `run ${pair.b + 1}`];
  const { counts, cost } = pair;
  const [low, high] = pair.differenceInterval;
  const left =
    pair.onlyInA + pair.onlyInB > 0
      ? html` (left out: ${pair.onlyInA} only in ${A}, ${pair.onlyInB} only in ${B})`
      : "";
  return html`<section class="pair" data-pair="${pair.a + 1}-${pair.b + 1}">
<h3>${A} (${runs[pair.a].model}) against ${B} (${runs[pair.b].model})</h3>
<table><thead><tr><th>${pair.tasks} tasks${left}</th><th>${B} solved</th><th>${B} not</th></tr></thead>
<tbody><tr><th>${A} solved</th><td class="n both">${counts.both}</td><td class="n only-a">${counts.onlyA}</td></tr>
<tr><th>${A} not</th><td class="n only-b">${counts.onlyB}</td><td class="n neither">${counts.neither}</td></tr></tbody></table>
<p>McNemar's exact test: <span class="p-value">${pStatement(pair.pValue)}</span> (on the ${counts.onlyA + counts.onlyB} tasks only one run solved).</p>
<p>Success ${percent(pair.rateA)} (95% CI ${range(pair.intervalA)}, Wilson) against ${percent(pair.rateB)} (${range(pair.intervalB)});
difference ${points(pair.difference)} points (95% CI ${points(low)} to ${points(high)}, Newcombe's paired interval).</p>
<p>${
    cost
      ? html`Cost per task ${formatCost(cost.meanA)} against ${formatCost(cost.meanB)}; difference ${signedCost(cost.meanDifference)} (95% CI ${signedCost(cost.interval[0])} to ${signedCost(cost.interval[1])}, paired bootstrap over ${cost.tasks} tasks).`
      : "Cost: unknown in one run or both (no known price)."
  }</p></section>`;
}
