// The one home of small helpers (src/shared/helpers.ts): each quantity reads one way everywhere.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  formatBytes,
  formatCost,
  formatDuration,
  formatTokens,
  parsePositiveInteger,
} from "../../src/shared/helpers.ts";

test("tokens: 950, 1.2k, 12k, 1.5M", () => {
  assert.deepEqual([950, 1000, 1200, 12_345, 999_499, 1_500_000].map(formatTokens), [
    "950",
    "1k",
    "1.2k",
    "12k",
    "999k",
    "1.5M",
  ]);
});

test("bytes in decimal units, as disks and downloads state them", () => {
  assert.deepEqual([900, 5_000, 12_300_000, 2_500_000_000].map(formatBytes), ["900 B", "5.0 KB", "12.3 MB", "2.5 GB"]);
});

test("dollars: under a dollar at least four decimals and two significant digits, so nothing priced reads as free", () => {
  assert.deepEqual([0, 0.00002, 0.000025, 0.0004, 0.0067, 0.015, 1.9].map(formatCost), [
    "$0",
    "$0.00002",
    "$0.000025",
    "$0.0004",
    "$0.0067",
    "$0.0150",
    "$1.90",
  ]);
});

test("durations from milliseconds: 12.3s, 2m05s, 1h05m", () => {
  assert.deepEqual([12_345, 125_000, 3_900_000].map(formatDuration), ["12.3s", "2m05s", "1h05m"]);
});

test("a count is plain digits from 1: what every flag and variable taking a count accepts", () => {
  assert.deepEqual(["1", "12", "256"].map(parsePositiveInteger), [1, 12, 256]);
  assert.deepEqual(
    ["0", "012", "-1", "1e3", "1.0", " 12", "0x10", ""].map(parsePositiveInteger),
    Array(8).fill(undefined),
  );
});
