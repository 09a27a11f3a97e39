// Two runs compared task by task: of the tasks both ran, which both solved, only one, neither;
// McNemar's exact p-value on the tasks only one solved; each rate and their difference with 95%
// intervals; and what the runs' costs differ by, task by task, with a paired bootstrap interval.
// "Solved" is a final status of `ok` (the agent finished and the task's test, if any, passed), as
// in the success rate; every other final status counts as not solved.
import { formatCost } from "../shared/helpers.ts";
import { percent, type RunReport } from "./batch-compare.ts";
import {
  mcnemarExact,
  type PairCounts,
  pairedBootstrapInterval,
  pairedDifferenceInterval,
  wilson,
} from "./paired-stats.ts";

/** Two runs' tasks side by side, summed up (indices into the report's runs, 0-based). */
export interface PairedComparison {
  a: number;
  b: number;
  /** Tasks both runs have a final result for: the pairs. */
  tasks: number;
  /** Tasks only one of the runs has (left out of the comparison). */
  onlyInA: number;
  onlyInB: number;
  counts: PairCounts;
  /** Each run's success rate over the paired tasks, with its Wilson interval. */
  rateA: number;
  rateB: number;
  intervalA: [number, number];
  intervalB: [number, number];
  /** rateA - rateB, with Newcombe's paired interval. */
  difference: number;
  differenceInterval: [number, number];
  /** McNemar's exact test, two-sided. */
  pValue: number;
  /** Cost per task, over the paired tasks whose cost both runs know; null when there is none. */
  cost: PairedCost | null;
}

interface PairedCost {
  tasks: number;
  meanA: number;
  meanB: number;
  /** meanA - meanB (USD per task), with the paired bootstrap's 95% percentile interval. */
  meanDifference: number;
  interval: [number, number];
}

/** Every pair of runs, in order (1 with 2, 1 with 3, ..., 2 with 3, ...). */
export function pairsOf(runs: RunReport[]): PairedComparison[] {
  return runs.flatMap((_, a) => runs.slice(a + 1).map((_, offset) => compareRuns(runs, a, a + 1 + offset)));
}

export function compareRuns(runs: RunReport[], a: number, b: number): PairedComparison {
  const statusesA = new Map(runs[a].results.map((result) => [result.id, result.status]));
  const statusesB = new Map(runs[b].results.map((result) => [result.id, result.status]));
  const ids = [...statusesA.keys()].filter((id) => statusesB.has(id));
  const counts: PairCounts = { both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  for (const id of ids) {
    const [solvedA, solvedB] = [statusesA.get(id) === "ok", statusesB.get(id) === "ok"];
    if (solvedA && solvedB) counts.both++;
    else if (solvedA) counts.onlyA++;
    else if (solvedB) counts.onlyB++;
    else counts.neither++;
  }
  const n = ids.length;
  const [solvedA, solvedB] = [counts.both + counts.onlyA, counts.both + counts.onlyB];
  const rate = (solved: number) => (n === 0 ? 0 : solved / n);
  return {
    a,
    b,
    tasks: n,
    onlyInA: statusesA.size - n,
    onlyInB: statusesB.size - n,
    counts,
    rateA: rate(solvedA),
    rateB: rate(solvedB),
    intervalA: wilson(solvedA, n),
    intervalB: wilson(solvedB, n),
    difference: rate(solvedA) - rate(solvedB),
    differenceInterval: pairedDifferenceInterval(counts),
    pValue: mcnemarExact(counts.onlyA, counts.onlyB),
    cost: pairedCost(runs[a].taskCosts, runs[b].taskCosts, ids),
  };
}

function pairedCost(costsA: Map<string, number>, costsB: Map<string, number>, ids: string[]): PairedCost | null {
  const priced = ids.filter((id) => costsA.has(id) && costsB.has(id));
  if (priced.length === 0) return null;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const a = priced.map((id) => costsA.get(id) ?? 0);
  const b = priced.map((id) => costsB.get(id) ?? 0);
  const differences = a.map((cost, index) => cost - b[index]);
  return {
    tasks: priced.length,
    meanA: mean(a),
    meanB: mean(b),
    meanDifference: mean(differences),
    interval: pairedBootstrapInterval(differences),
  };
}

/** A p-value as a reader takes it: three significant digits, and "< 0.0001" below that. */
export function formatPValue(p: number): string {
  if (p < 0.0001) return "< 0.0001";
  return p >= 0.001 ? p.toFixed(3) : p.toPrecision(2);
}

/** `p = 0.019`, or `p < 0.0001`. */
export function pStatement(p: number): string {
  const shown = formatPValue(p);
  return shown.startsWith("<") ? `p ${shown}` : `p = ${shown}`;
}

/** A difference in points of percentage: `+12.3 pts`. */
function points(share: number): string {
  return `${share >= 0 ? "+" : "−"}${Math.abs(share * 100).toFixed(1)} pts`;
}

function signedCost(usd: number): string {
  return `${usd >= 0 ? "+" : "−"}${formatCost(Math.abs(usd))}`;
}

/** One pair for the terminal: the 2x2 counts, the test, the rates and the cost difference. */
export function formatPair(pair: PairedComparison): string {
  const [A, B] = [`run ${pair.a + 1}`, `run ${pair.b + 1}`];
  const { counts } = pair;
  const interval = ([low, high]: [number, number]) => `${percent(low)}–${percent(high)}`;
  const lines = [
    `${A} against ${B}, task by task (${pair.tasks} tasks both ran${pair.onlyInA + pair.onlyInB > 0 ? `; left out: ${pair.onlyInA} only in ${A}, ${pair.onlyInB} only in ${B}` : ""}):`,
    `  both solved ${counts.both} · only ${A} ${counts.onlyA} · only ${B} ${counts.onlyB} · neither ${counts.neither}`,
    `  McNemar's exact test: ${pStatement(pair.pValue)} (two-sided, on the ${counts.onlyA + counts.onlyB} tasks only one solved)`,
    `  success ${percent(pair.rateA)} (95% CI ${interval(pair.intervalA)}) against ${percent(pair.rateB)} (${interval(pair.intervalB)}); difference ${points(pair.difference)} (95% CI ${points(pair.differenceInterval[0])} to ${points(pair.differenceInterval[1])}, Newcombe)`,
  ];
  const { cost } = pair;
  if (cost)
    lines.push(
      `  cost per task ${formatCost(cost.meanA)} against ${formatCost(cost.meanB)}; difference ${signedCost(cost.meanDifference)} (95% CI ${signedCost(cost.interval[0])} to ${signedCost(cost.interval[1])}, paired bootstrap over ${cost.tasks} tasks)`,
    );
  else lines.push("  cost: unknown in one run or both (no known price)");
  return `${lines.join("\n")}\n`;
}
