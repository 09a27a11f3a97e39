// A test that fails while its child process runs must still let the runner exit: the child is
// killed in the teardown hooks (test/support/teardown.ts). Checked from outside, on a throwaway test file
// run by node's test runner in a subprocess, with a bound so this test cannot hang either.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { ROOT, tempDir } from "../support/helpers.ts";

/** Far above the second or two the run takes; reaching it means the runner hung. */
const RUNNER_LIMIT_MS = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("a test that fails with a child still running: the runner reports the failure and exits, and the child is gone", async () => {
  const dir = tempDir();
  const pidFile = join(dir, "child.pid");
  const failing = join(dir, "fails-on-purpose.test.ts");
  writeFileSync(
    failing,
    [
      'import assert from "node:assert/strict";',
      'import { spawn } from "node:child_process";',
      'import { writeFileSync } from "node:fs";',
      'import { test } from "node:test";',
      `import { killAtTestEnd } from ${JSON.stringify(pathToFileURL(join(ROOT, "test", "support", "teardown.ts")).href)};`,
      'test("fails while a child runs", () => {',
      '  const child = killAtTestEnd(spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: ["pipe", "pipe", "pipe"] }));',
      `  writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      '  assert.equal(1 + 1, 3, "fails on purpose");',
      "});",
      "",
    ].join("\n"),
  );
  // A runner of its own, not a child of ours: without NODE_TEST_CONTEXT it reports as `npm test` does.
  // TAP named: node 23 and later report `spec` by default, also to a pipe.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=tap", failing],
    {
      cwd: ROOT,
      env,
      timeout: RUNNER_LIMIT_MS,
      killSignal: "SIGKILL",
    },
  ).then(
    () => ({ code: 0, signal: null, stdout: "" }),
    (error: { code: number | null; signal: NodeJS.Signals | null; stdout: string }) => error,
  );
  assert.equal(run.signal, null, `the runner was killed after ${RUNNER_LIMIT_MS} ms: it hung`);
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stdout, /not ok 1 - fails while a child runs/);
  assert.match(run.stdout, /fails on purpose/);
  assert.match(run.stdout, /^# fail 1$/m);
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.equal(isAlive(pid), false, `child ${pid} outlived its test`);
});
