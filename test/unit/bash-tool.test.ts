// The bash tool against a real shell in a temporary folder.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseArguments } from "../../src/core/tool.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { MAX_OUTPUT_BYTES } from "../../src/tools/output-limit.ts";
import { tempDir } from "../support/helpers.ts";

async function runBash(args: Record<string, unknown>, options: { cwd?: string; signal?: AbortSignal } = {}) {
  const parsed = parseArguments(bash, JSON.stringify(args));
  assert.ok(parsed.ok);
  const output = await bash.run(parsed.input as { command: string }, {
    cwd: options.cwd ?? tempDir(),
    signal: options.signal ?? new AbortController().signal,
    state: new Map(),
  });
  return typeof output === "string" ? { content: output, isError: false } : output;
}

test("runs in the working directory with stdout and stderr interleaved and the exit code", async () => {
  const cwd = tempDir();
  const result = await runBash({ command: "pwd; echo to-err >&2; exit 4" }, { cwd });
  assert.equal(result.content, `${cwd}\nto-err\n[exit code: 4]`);
  assert.equal(result.isError, true);
});

test("stdin is closed, and pagers are off", async () => {
  const result = await runBash({ command: 'cat; echo "pager=$PAGER git=$GIT_PAGER"' });
  assert.equal(result.content, "pager=cat git=cat\n[exit code: 0]");
});

test("a hung command is killed with its whole process group at the timeout", async () => {
  const cwd = tempDir();
  // The grandchild would write the marker after 3 s if it survived the kill.
  const result = await runBash({ command: "(sleep 3; touch survived) & sleep 30", timeout: 1 }, { cwd });
  assert.match(result.content, /\[timed out after 1s; the process tree was killed\]/);
  await new Promise((resolve) => setTimeout(resolve, 3500));
  assert.equal(existsSync(join(cwd, "survived")), false);
});

test("huge output is cut in the middle, keeping head and tail", async () => {
  const result = await runBash({ command: "seq 1 200000" });
  assert.ok(Buffer.byteLength(result.content) < MAX_OUTPUT_BYTES + 500);
  assert.match(result.content, /^1\n2\n3\n/);
  assert.match(result.content, /199999\n200000\n\[exit code: 0\]$/);
  assert.match(result.content, /lines \(\d+ bytes\) cut from the middle/);
});

test("a single enormous line is cut too", async () => {
  const result = await runBash({ command: "head -c 3000000 /dev/zero | tr '\\0' x" });
  assert.ok(Buffer.byteLength(result.content) < MAX_OUTPUT_BYTES + 500);
  assert.match(result.content, /^x{1000}/);
  assert.match(result.content, /x{1000}\n\[exit code: 0\]$/);
  assert.match(result.content, /cut from the middle of this output/);
});

test("non-UTF-8 bytes become replacement characters, not a broken message", async () => {
  const result = await runBash({ command: "printf 'ok \\xff\\xfe end'" });
  assert.equal(result.content, "ok \uFFFD\uFFFD end\n[exit code: 0]");
  assert.doesNotThrow(() => JSON.stringify(result.content));
});

test("colour codes and carriage-return progress bars are cleaned", async () => {
  const result = await runBash({ command: "printf '\\033[31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n'" });
  assert.equal(result.content, "red\n100%\n[exit code: 0]");
});

test("a background child holding the pipe does not hang the call", async () => {
  const cwd = tempDir();
  const started = Date.now();
  const result = await runBash({ command: "(sleep 20; echo late > marker) & echo launched" }, { cwd });
  assert.equal(result.content, "launched\n[exit code: 0]");
  // Had the call waited for the child, the child would have written its marker.
  assert.equal(existsSync(join(cwd, "marker")), false);
  // A liveness bound only, far above a normal run, so a loaded machine cannot fail it.
  assert.ok(Date.now() - started < 120_000);
});

test("an abort kills the running command", async () => {
  const controller = new AbortController();
  const cwd = tempDir();
  // Aborted once the command is under way (the sandbox's first command also starts its helper).
  const abortOnceStarted = setInterval(() => existsSync(join(cwd, ".started")) && controller.abort(), 20);
  const result = await runBash(
    { command: "echo before; touch .started; sleep 30" },
    { cwd, signal: controller.signal },
  ).finally(() => clearInterval(abortOnceStarted));
  assert.equal(result.content, "before\n[interrupted by the user; the process tree was killed]");
});

test("a nonsensical timeout is rejected naming the field", () => {
  const parsed = parseArguments(bash, JSON.stringify({ command: "true", timeout: -5 }));
  assert.equal(parsed.ok, false);
  assert.ok(!parsed.ok && /timeout/.test(parsed.problem.message));
});
