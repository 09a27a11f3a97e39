// FORCE_COLOR as Node reads it (lib/internal/tty.js getColorDepth): colours on a stream that is no
// TTY (a CI log, `| less -R`), winning over NO_COLOR; `0` turns them off. Colours only: no cursor
// movement reaches a log, since FORCE_COLOR makes no TTY of it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const CURSOR_MOVES = /\x1b\[(\?25[lh]|\d*[ABCDGHJK])/;

test("FORCE_COLOR colours the answer on a pipe without redraws; FORCE_COLOR=0 leaves it plain", async () => {
  for (const [force, coloured] of [
    ["1", true],
    ["", true],
    ["0", false],
  ] as const) {
    const fake = await serve([{ reply: { text: "a **bold** claim" } }]);
    const result = await runCli([...fakeFlags(fake), "-p", "say it"], {
      cwd: tempDir(),
      env: cleanEnv({ FORCE_COLOR: force }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(/\x1b\[1m/.test(result.stdout), coloured, `FORCE_COLOR=${force}: ${JSON.stringify(result.stdout)}`);
    assert.doesNotMatch(result.stdout + result.stderr, CURSOR_MOVES, `FORCE_COLOR=${force}`);
    if (!coloured) assert.doesNotMatch(result.stdout + result.stderr, /\x1b/);
  }
});
