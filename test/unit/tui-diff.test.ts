// Coloured diffs and folded tool output in the trace.
import assert from "node:assert/strict";
import { test } from "node:test";
import { unifiedDiff } from "../../src/shared/diff.ts";
import { paletteFor } from "../../src/ui/colors.ts";
import { foldOutput, renderDiff } from "../../src/ui/diff-render.ts";
import { fitWidth } from "../../src/ui/text-width.ts";

const tty = { isTTY: true } as NodeJS.WriteStream;
const colors = paletteFor(tty, { TERM: "xterm-256color" });
const plain = paletteFor(tty, { NO_COLOR: "1" });

test("a diff is coloured by line kind: + green, - red, hunks cyan, context dim; each hunk line numbered", () => {
  const diff = unifiedDiff("one\ntwo\nthree\n", "one\n2\nthree\n", "n.txt");
  const number = (n: number) => `\x1b[2m${n} \x1b[22m`;
  assert.equal(
    renderDiff(diff, colors, 80),
    [
      "\x1b[1m--- a/n.txt\x1b[22m",
      "\x1b[1m+++ b/n.txt\x1b[22m",
      "\x1b[36m@@ -1,3 +1,3 @@\x1b[39m",
      `${number(1)}\x1b[2m one\x1b[22m`,
      `${number(2)}\x1b[31m-two\x1b[39m`,
      `${number(2)}\x1b[32m+2\x1b[39m`,
      `${number(3)}\x1b[2m three\x1b[22m`,
    ].join("\n"),
  );
  assert.equal(
    renderDiff(diff, plain, 80),
    "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n1  one\n2 -two\n2 +2\n3  three",
    "NO_COLOR: the diff with its line numbers",
  );
});

test("in a changed line paired with its new version only the characters that changed are inverted; numbers follow each file", () => {
  const before = `${Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n")}\nconst limit = 10;\nend\n`;
  const after = `${Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n")}\nconst limit = 20;\nadded\nend\n`;
  const lines = renderDiff(unifiedDiff(before, after, "c.ts"), colors, 80).split("\n");
  assert.ok(lines.includes("\x1b[2m10 \x1b[22m\x1b[31m-const limit = \x1b[7m1\x1b[27m0;\x1b[39m"), lines.join("\n"));
  assert.ok(lines.includes("\x1b[2m10 \x1b[22m\x1b[32m+const limit = \x1b[7m2\x1b[27m0;\x1b[39m"), lines.join("\n"));
  assert.ok(lines.includes("\x1b[2m11 \x1b[22m\x1b[32m+added\x1b[39m"), "an added line alone: no inverted part");
  assert.ok(lines.includes("\x1b[2m12 \x1b[22m\x1b[2m end\x1b[22m"), "context after it: the new file's number");
});

test("a long diff is folded with a count of the hidden lines", () => {
  const after = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
  const diff = unifiedDiff(undefined, after, "big.txt");
  const lines = renderDiff(diff, plain, 80, 10).split("\n");
  assert.equal(lines.length, 11);
  assert.equal(lines.at(-1), `… ${diff.trimEnd().split("\n").length - 10} more diff lines`);
});

test("long output keeps its first lines and its last, and says how much is hidden", () => {
  const output = Array.from({ length: 50 }, (_, i) => `row ${i}`).join("\n");
  assert.equal(
    foldOutput(output, 80),
    ["  row 0", "  row 1", "  row 2", "  … 46 lines hidden (314 B)", "  row 49"].join("\n"),
  );
  assert.equal(foldOutput("a\nb\n", 80), "  a\n  b");
});

test("lines are cut to the terminal width, wide characters counted twice", () => {
  assert.equal(fitWidth("x".repeat(80), 80), "x".repeat(80));
  assert.equal(fitWidth("x".repeat(81), 80), `${"x".repeat(79)}…`);
  assert.equal(fitWidth("漢字漢字", 5), "漢字…");
});
