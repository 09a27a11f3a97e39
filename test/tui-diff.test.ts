// Coloured diffs and folded tool output in the trace.
import assert from "node:assert/strict";
import { test } from "node:test";
import { paletteFor } from "../src/ui/colors.ts";
import { foldOutput, renderDiff } from "../src/ui/diff-render.ts";
import { fitWidth } from "../src/ui/text-width.ts";
import { unifiedDiff } from "../src/core/diff.ts";

const tty = { isTTY: true } as NodeJS.WriteStream;
const colors = paletteFor(tty, { TERM: "xterm-256color" });
const plain = paletteFor(tty, { NO_COLOR: "1" });

test("a diff is coloured by line kind: + green, - red, hunks cyan, context dim", () => {
  const diff = unifiedDiff("one\ntwo\nthree\n", "one\n2\nthree\n", "n.txt");
  assert.equal(
    renderDiff(diff, colors, 80),
    [
      "\x1b[1m--- a/n.txt\x1b[22m",
      "\x1b[1m+++ b/n.txt\x1b[22m",
      "\x1b[36m@@ -1,3 +1,3 @@\x1b[39m",
      "\x1b[2m one\x1b[22m",
      "\x1b[31m-two\x1b[39m",
      "\x1b[32m+2\x1b[39m",
      "\x1b[2m three\x1b[22m",
    ].join("\n"),
  );
  assert.equal(renderDiff(diff, plain, 80), diff.trimEnd(), "NO_COLOR: the diff as it is");
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
