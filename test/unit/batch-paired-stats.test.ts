// The paired comparison's statistics against values computed by hand and published ones, and two
// runs paired task by task (who solved what, which tasks only one run has, costs of every attempt).
import assert from "node:assert/strict";
import { test } from "node:test";
import { runsOf } from "../../src/batch/batch-compare.ts";
import { compareRuns, formatPair, formatPValue, pairsOf } from "../../src/batch/batch-pairs.ts";
import {
  mcnemarExact,
  pairedBootstrapInterval,
  pairedDifferenceInterval,
  wilson,
} from "../../src/batch/paired-stats.ts";
import type { TaskResult, TaskStatus } from "../../src/batch/task-result.ts";

const near = (actual: number, expected: number, digits: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 0.5 * 10 ** -digits, `${what}: ${actual}, expected ${expected}`);

test("McNemar's exact p-value: by hand, and the published examples", () => {
  // By hand: b = 1, c = 7, so 8 discordant pairs; P(X <= 1) = (C(8,0) + C(8,1)) / 2^8 = 9/256, doubled.
  assert.equal(mcnemarExact(1, 7), 18 / 256);
  assert.equal(mcnemarExact(7, 1), 18 / 256, "two-sided: the order of the runs does not matter");
  // Fagerland, Lydersen & Laake 2013 (BMC Med Res Methodol 13:91), exact conditional McNemar p-values
  // of their two examples: Bentur et al. 2009 (b = 1, c = 7) 0.070, Cavo et al. 2012 (b = 6, c = 16) 0.052.
  near(mcnemarExact(1, 7), 0.07, 3, "Bentur");
  near(mcnemarExact(6, 16), 0.052, 3, "Cavo");
  // By hand for Cavo: sum of C(22, i) for i <= 6 is 110056, over 2^22, doubled.
  near(mcnemarExact(6, 16), (2 * 110056) / 2 ** 22, 12, "Cavo by hand");
  assert.equal(mcnemarExact(0, 0), 1, "no discordant pair: no evidence of a difference");
  assert.equal(mcnemarExact(5, 5), 1, "a tie is capped at 1");
  // Large counts stay finite: 2000 discordant pairs split 900/1100 (the normal approximation gives about 8e-6).
  const large = mcnemarExact(900, 1100);
  assert.ok(large > 1e-6 && large < 1e-4, String(large));
});

test("Wilson's interval and Newcombe's paired difference interval against published values", () => {
  // Wilson 95% for 1 of 1: 20.7% to 100% (the report's own check in test/cli/batch-local.test.ts).
  near(wilson(1, 1)[0], 0.2065, 4, "wilson 1/1");
  // Cavo et al. 2012 as in Fagerland, Lydersen & Laake's contingencytables R package (the companion of
  // their book Statistical Analysis of Contingency Tables, ch. 8), its tests/testthat/test-ch8.R:
  // Newcombe square-and-add, estimate -0.0621, 95% CI -0.1186 to -0.0046.
  const [low, high] = pairedDifferenceInterval({ both: 59, onlyA: 6, onlyB: 16, neither: 80 });
  near(low, -0.1186, 4, "Cavo low");
  near(high, -0.0046, 4, "Cavo high");
  // No pair differs: the interval still has width (Wald's would be a point) and holds 0.
  const [tieLow, tieHigh] = pairedDifferenceInterval({ both: 10, onlyA: 0, onlyB: 0, neither: 10 });
  assert.ok(tieLow < 0 && tieHigh > 0, `${tieLow}..${tieHigh}`);
  // Everything solved by A, nothing by B: bounded by 1.
  const [, allHigh] = pairedDifferenceInterval({ both: 0, onlyA: 5, onlyB: 0, neither: 0 });
  assert.ok(allHigh <= 1);
});

test("the paired bootstrap is deterministic and right where it can be worked out", () => {
  // Differences [0, 1]: a resample's mean is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4, so the 2.5th
  // and 97.5th percentiles are 0 and 1.
  assert.deepEqual(pairedBootstrapInterval([0, 1]), [0, 1]);
  assert.deepEqual(pairedBootstrapInterval([0.25, 0.25, 0.25]), [0.25, 0.25], "no spread: a point");
  const skewed = Array.from({ length: 150 }, (_, index) => (index % 10 === 0 ? 0.5 : -0.01));
  const interval = pairedBootstrapInterval(skewed);
  assert.deepEqual(pairedBootstrapInterval(skewed), interval, "the same seed gives the same interval");
  const mean = skewed.reduce((sum, value) => sum + value, 0) / skewed.length;
  assert.ok(interval[0] < mean && mean < interval[1], `${interval} holds the mean ${mean}`);
  assert.notDeepEqual(pairedBootstrapInterval(skewed, 2000, 1), pairedBootstrapInterval(skewed, 2000, 2));
});

function line(runId: string, id: string, status: TaskStatus, cost?: number): TaskResult {
  return {
    id,
    status,
    runId,
    provider: "openai",
    model: runId === "r1" ? "model-a" : "model-b",
    api: "chat",
    thinking: null,
    harnessVersion: "1",
    attempt: 1,
    answer: "",
    turns: 1,
    tokens: { input: 1, output: 1, cached: 0 },
    ...(cost === undefined ? {} : { cost }),
    durationMs: 10,
    finishedAt: "2026-12-05T00:00:00.000Z",
    testExitCode: null,
    sessionId: null,
    sessionPath: null,
    workdir: null,
    diff: null,
  };
}

test("two runs are paired task by task; tasks one run lacks are left out and said", () => {
  const first = [
    line("r1", "t1", "ok", 0.01),
    line("r1", "t2", "ok", 0.02),
    line("r1", "t3", "crashed", 0.05), // a crashed attempt's spend counts toward t3's cost
    line("r1", "t3", "failed", 0.01),
    line("r1", "t4", "failed", 0.01),
    line("r1", "only-1", "ok", 0.01),
  ];
  const second = [
    line("r2", "t1", "ok", 0.01),
    line("r2", "t2", "timeout", 0.01),
    line("r2", "t3", "ok", 0.01),
    line("r2", "t4", "max_turns", 0.01),
  ];
  const runs = runsOf([
    { path: "a.jsonl", results: first },
    { path: "b.jsonl", results: second },
  ]);
  const pair = compareRuns(runs, 0, 1);
  assert.deepEqual(pair.counts, { both: 1, onlyA: 1, onlyB: 1, neither: 1 });
  assert.equal(pair.tasks, 4);
  assert.deepEqual([pair.onlyInA, pair.onlyInB], [1, 0]);
  assert.equal(pair.pValue, 1);
  assert.equal(pair.rateA, 0.5);
  assert.equal(pair.difference, 0);
  assert.equal(pair.cost?.tasks, 4);
  near(pair.cost?.meanA ?? 0, (0.01 + 0.02 + 0.06 + 0.01) / 4, 9, "A's cost per task, every attempt");
  near(pair.cost?.meanDifference ?? 0, 0.025 - 0.01, 9, "difference");
  assert.deepEqual(pairsOf(runs), [pair]);
  const text = formatPair(pair);
  assert.match(
    text,
    /^run 1 against run 2, task by task \(4 tasks both ran; left out: 1 only in run 1, 0 only in run 2\):/,
  );
  assert.match(text, /both solved 1 · only run 1 1 · only run 2 1 · neither 1\n/);
  assert.match(text, /McNemar's exact test: p = 1\.000 /);
  assert.equal(formatPValue(0.00001), "< 0.0001");
  assert.equal(formatPValue(0.00042), "0.00042");
  // Three runs: three pairs; unpriced runs have no cost comparison.
  const third = runsOf([{ path: "c.jsonl", results: [line("r3", "t1", "ok")] }]);
  const all = pairsOf([...runs, ...third]);
  assert.deepEqual(
    all.map((each) => [each.a, each.b]),
    [
      [0, 1],
      [0, 2],
      [1, 2],
    ],
  );
  assert.equal(all[1].cost, null);
  assert.match(formatPair(all[1]), /cost: unknown/);
});
