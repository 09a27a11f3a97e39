// `harness ... | head -1`: a reader that closes stdout early ends the run quietly (exit 0 or 141).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, test } from "node:test";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

/** Runs the CLI, reads stdout until its first line, then closes the pipe as `head -1` does. */
function runAndCloseAfterFirstLine(
  args: string[],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; firstLine: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, [CLI, ...args], {
      cwd: tempDir(),
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let firstLine = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      if (firstLine.includes("\n")) return;
      firstLine += chunk.toString("utf8");
      if (firstLine.includes("\n")) {
        firstLine = firstLine.slice(0, firstLine.indexOf("\n"));
        child!.stdout!.destroy();
      }
    });
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, firstLine, stderr }));
  });
}

test("stream-json | head -1: the run stops and exits quietly, without a stack trace", async () => {
  const steps = Array.from({ length: 5 }, (_, i) => ({
    reply: { toolCalls: [{ name: "bash", arguments: { command: `echo ${i}` } }], delayMs: 50 },
  }));
  const fake = await serve([...steps, { reply: { text: "done" } }]);
  const result = await runAndCloseAfterFirstLine([
    ...fakeFlags(fake),
    "--sandbox",
    "off",
    "-y",
    "--output",
    "stream-json",
    "-p",
    "go",
  ]);
  assert.equal(JSON.parse(result.firstLine).type, "start");
  assert.equal(result.signal, null);
  assert.ok(result.code === 141 || result.code === 0, `exit ${result.code}`);
  assert.equal(result.stderr, "", "nothing on stderr: no EPIPE, no stack");
  assert.ok(fake.remaining > 0, "the run stopped instead of working on for nobody");
});
