// Dataset selection for `harness batch` (src/batch/dataset-selection.ts): the seeded shuffle is
// pinned to exact values (so any engine that computes otherwise fails here), then filter, then
// slice with Python's list[a:b] meaning, and every wrong flag combination is an error naming it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SelectionError, selectionOf, selectTasks } from "../../src/batch/dataset-selection.ts";
import { mulberry32 } from "../../src/shared/seeded-random.ts";

const tasks = Array.from({ length: 10 }, (_, index) => ({ id: `${index % 2 ? "django" : "sympy"}__${index}` }));
const ids = (list: { id: string }[]) => list.map((task) => task.id.split("__")[1]).join(",");

test("mulberry32 and the shuffle give pinned values; the order is shuffle, filter, slice", () => {
  const random = mulberry32(42);
  assert.deepEqual([random(), random(), random()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  assert.equal(ids(selectTasks(tasks, { seed: 7 })), "6,5,8,1,2,3,4,7,9,0");
  assert.equal(ids(selectTasks(tasks, { seed: 7 })), ids(selectTasks(tasks, { seed: 7 })));
  assert.notEqual(ids(selectTasks(tasks, { seed: 8 })), ids(selectTasks(tasks, { seed: 7 })));
  // Shuffled whole first, then the django ones, then the first two of those.
  const selection = selectionOf({ shuffle: true, seed: 7, filter: "^django", slice: ":2" });
  assert.equal(ids(selectTasks(tasks, selection)), "5,1");
  assert.equal(ids(tasks), "0,1,2,3,4,5,6,7,8,9", "the input is not reordered");
});

test("--slice reads as Python's list[a:b]; --filter is an unanchored RegExp on the id", () => {
  const sliced = (slice: string) => ids(selectTasks(tasks, selectionOf({ slice })));
  assert.equal(sliced("2:4"), "2,3");
  assert.equal(sliced(":3"), "0,1,2");
  assert.equal(sliced("8:"), "8,9");
  assert.equal(sliced("-2:"), "8,9");
  assert.equal(sliced("1:-7"), "1,2");
  assert.equal(sliced("5:50"), "5,6,7,8,9");
  assert.equal(sliced("7:3"), "");
  assert.equal(ids(selectTasks(tasks, selectionOf({ filter: "__[37]$" }))), "3,7");
  assert.equal(selectTasks(tasks, selectionOf({})), tasks);
});

test("wrong selections are errors naming the flag", () => {
  const refused = (flags: Parameters<typeof selectionOf>[0], message: RegExp) =>
    assert.throws(
      () => selectionOf(flags),
      (error: Error) => error instanceof SelectionError && message.test(error.message),
    );
  refused({ shuffle: true }, /--shuffle needs --seed/);
  refused({ seed: 3 }, /--seed is for --shuffle/);
  refused({ slice: "3" }, /--slice takes a:b/);
  refused({ slice: "a:b" }, /--slice takes a:b/);
  refused({ slice: "-:2" }, /--slice takes a:b/);
  refused({ slice: "1:2:3" }, /--slice takes a:b/);
  refused({ filter: "(" }, /--filter takes a regular expression/);
});
