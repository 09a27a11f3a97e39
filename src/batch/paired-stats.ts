// The statistics of a paired comparison of two runs on the same tasks, as pure functions: each task
// is a pair (run A's outcome, run B's), so the runs are compared task by task, not by their totals.
// Formulas are the papers' (cited at each); test/unit/batch-paired-stats.test.ts checks them against
// hand-computed and published values.
import { mulberry32 } from "../shared/seeded-random.ts";

/** z for a 95% two-sided interval. */
const Z_95 = 1.959964;

/** Wilson score interval (95%) for `successes` of `trials`: sound for small counts and rates near 0 or 1. */
export function wilson(successes: number, trials: number): [number, number] {
  if (trials === 0) return [0, 0];
  const p = successes / trials;
  const z2 = Z_95 * Z_95;
  const center = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z_95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/**
 * McNemar's exact test, two-sided: `onlyA` and `onlyB` are the discordant pairs (tasks only run A
 * solved, only run B solved). Under "the two runs succeed equally often" each discordant pair is
 * A's with probability 1/2, so the p-value is twice the binomial tail of the smaller count,
 * 2 * P(X <= min(b, c)) with X ~ Binomial(b + c, 1/2), at most 1 (McNemar 1947; the exact
 * conditional form in Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91).
 *
 * Exact rather than the chi-square statistic (b - c)^2 / (b + c): that is a large-sample
 * approximation, poor when b + c is small (under about 25 discordant pairs, the usual rule), and
 * two runs of a hundred-odd tasks often differ on only a handful. The exact test is valid at any
 * count; it is conservative (its p-value errs high), which for a published claim is the safe side.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const k = Math.min(onlyA, onlyB);
  // Sum C(n, i) / 2^n for i <= k in log space, so that n in the thousands neither overflows nor underflows.
  const logHalfN = n * Math.log(0.5);
  let logChoose = 0; // log C(n, 0)
  const terms: number[] = [];
  for (let i = 0; i <= k; i++) {
    terms.push(logChoose + logHalfN);
    logChoose += Math.log(n - i) - Math.log(i + 1);
  }
  const top = Math.max(...terms);
  const tail = Math.exp(top) * terms.reduce((sum, term) => sum + Math.exp(term - top), 0);
  return Math.min(1, 2 * tail);
}

/** A paired 2x2 table: tasks both runs solved, only A, only B, neither. */
export interface PairCounts {
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
}

/**
 * 95% interval for the difference of paired success rates, A's minus B's: Newcombe's hybrid score
 * ("square-and-add") interval for paired data, method 10 of Newcombe 1998 (Stat Med 17:2635-2650),
 * as Fagerland, Lydersen & Laake recommend it (Stat Med 2014, 33:2850-2875). It combines each
 * rate's Wilson interval, allowing for their correlation through phi, the correlation of the
 * table with its numerator corrected for continuity (max(ad - bc - n/2, 0) when ad > bc). Unlike
 * the Wald interval it never leaves [-1, 1] and does not collapse to a point when no pair differs.
 */
export function pairedDifferenceInterval(counts: PairCounts): [number, number] {
  const { both: a, onlyA: b, onlyB: c, neither: d } = counts;
  const n = a + b + c + d;
  if (n === 0) return [0, 0];
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const [l1, u1] = wilson(a + b, n);
  const [l2, u2] = wilson(a + c, n);
  const margins = (a + b) * (c + d) * (a + c) * (b + d);
  const cross = a * d - b * c;
  const corrected = cross > n / 2 ? cross - n / 2 : Math.min(cross, 0);
  const phi = margins === 0 ? 0 : corrected / Math.sqrt(margins);
  const below = Math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2);
  const above = Math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2);
  return [Math.max(-1, p1 - p2 - below), Math.min(1, p1 - p2 + above)];
}

/** Resamples of the paired bootstrap: enough for a 95% percentile interval to settle to about 3 digits. */
export const BOOTSTRAP_RESAMPLES = 10_000;
/** The fixed seed: the same results give the same interval, run after run and machine after machine. */
export const BOOTSTRAP_SEED = 47;

/**
 * 95% percentile interval of the mean of paired differences (A's cost minus B's, task by task) by
 * the paired bootstrap (Efron & Tibshirani 1993, An Introduction to the Bootstrap, ch. 13): the
 * tasks are drawn with replacement, each draw keeping a task's two costs together, so what the
 * runs share (a hard task is dear for both) stays in. Costs are skewed (a few long tasks dominate),
 * which is why this and not a t interval. Deterministic: a seeded generator (mulberry32).
 */
export function pairedBootstrapInterval(
  differences: number[],
  resamples = BOOTSTRAP_RESAMPLES,
  seed = BOOTSTRAP_SEED,
): [number, number] {
  const n = differences.length;
  if (n === 0) return [0, 0];
  const random = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))];
  return [at(0.025), at(0.975)];
}
