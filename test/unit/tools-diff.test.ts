import assert from "node:assert/strict";
import { test } from "node:test";
import { unifiedDiff } from "../../src/shared/diff.ts";

/** Applies a unified diff to `before`, checking every context and removed line on the way. */
function applyDiff(before: string, diff: string): string {
  const old = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const result: string[] = [];
  let index = 0;
  const lines = diff.split("\n").slice(2, -1);
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(line);
    if (hunk) {
      const start = Number(hunk[1]) - (hunk[2] === "0" ? 0 : 1);
      while (index < start) result.push(old[index++]);
    } else if (line.startsWith("+")) {
      result.push(line.slice(1));
    } else if (line.startsWith("-") || line.startsWith(" ")) {
      assert.equal(old[index], line.slice(1));
      if (line.startsWith(" ")) result.push(old[index]);
      index++;
    }
  }
  while (index < old.length) result.push(old[index++]);
  return result.length === 0 ? "" : `${result.join("\n")}\n`;
}

test("unifiedDiff shows a change with 3 lines of context in separate hunks", () => {
  const before = `${Array.from({ length: 20 }, (_, i) => `${i + 1}`).join("\n")}\n`;
  const after = before.replace("2\n", "two\n").replace("18\n", "").replace("10\n", "10\nten\n");
  assert.equal(
    unifiedDiff(before, after, "n.txt"),
    [
      "--- a/n.txt",
      "+++ b/n.txt",
      "@@ -1,5 +1,5 @@",
      " 1",
      "-2",
      "+two",
      " 3",
      " 4",
      " 5",
      "@@ -8,6 +8,7 @@",
      " 8",
      " 9",
      " 10",
      "+ten",
      " 11",
      " 12",
      " 13",
      "@@ -15,6 +16,5 @@",
      " 15",
      " 16",
      " 17",
      "-18",
      " 19",
      " 20",
      "",
    ].join("\n"),
  );
  assert.equal(unifiedDiff("same\n", "same\n", "x"), "");
});

test("unifiedDiff output applies back to the new text for scrambled edits", () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const before = Array.from({ length: random(30) }, () => `l${random(8)}`);
    const after = before
      .filter(() => random(4) !== 0)
      .flatMap((line) => (random(5) === 0 ? [line, `n${random(8)}`] : [line]));
    const beforeText = before.length ? `${before.join("\n")}\n` : "";
    const afterText = after.length ? `${after.join("\n")}\n` : "";
    assert.equal(applyDiff(beforeText, unifiedDiff(beforeText, afterText, "f")), afterText, `round ${round}`);
  }
});
