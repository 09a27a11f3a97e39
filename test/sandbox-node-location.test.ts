// The sandbox starts its command helper with the very `node` that runs the harness. A Node
// installed under /tmp (a CI's unpacked binary, a copy) is where the sandbox puts a private /tmp,
// and every bash call failed inside bwrap while the run went on as if nothing were wrong.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "./fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "./helpers.ts";
import { needs } from "./system-programs.ts";
import { killAtTestEnd } from "./teardown.ts";

const serve = fakeServerPerTest();
const bwrapMissing = needs("bwrap");

/** A copy of this node under /tmp (tempDir is in os.tmpdir(), /tmp here), and a symlink to it beside it. */
function nodeUnderTmp(): { copy: string; link: string } {
  const folder = tempDir("harness-node-");
  const copy = join(folder, "node");
  copyFileSync(process.execPath, copy);
  const link = join(folder, "node-link");
  symlinkSync(copy, link);
  return { copy, link };
}

/** The built CLI run by `node` with the sandbox on; `onSpawn` runs once the process has started. */
function runWith(node: string, fake: FakeLLM, onSpawn?: () => void): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = killAtTestEnd(
      spawn(node, [CLI, "-y", "--sandbox", "on", ...fakeFlags(fake), "-p", "run it"], {
        cwd: tempDir(),
        env: cleanEnv(),
        stdio: ["ignore", "ignore", "pipe"],
      }),
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("spawn", () => onSpawn?.());
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

const script = () => [
  {
    reply: {
      toolCalls: [{ name: "bash", arguments: { command: "echo inside; cat /etc/hostname >/dev/null; echo $?" } }],
    },
  },
  { reply: { text: "done" } },
];

test("a node under /tmp, called by its path or a symlink, still starts commands in the sandbox", {
  skip: bwrapMissing,
}, async () => {
  const { copy, link } = nodeUnderTmp();
  for (const node of [copy, link]) {
    const fake = await serve(script());
    const result = await runWith(node, fake);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fake.requests[1].body.messages.at(-1).content, "inside\n0\n[exit code: 0]", node);
  }
});

test("a command the sandbox cannot start is a failed start the model hears, with bwrap's reason and exit code 127", {
  skip: bwrapMissing,
}, async () => {
  // The node binary is gone once the harness runs (a package upgrade under a long session): bwrap
  // cannot exec the helper. It used to read as a helper that 'stopped while this command ran'.
  const { copy } = nodeUnderTmp();
  const fake = await serve(script());
  const result = await runWith(copy, fake, () => rmSync(copy));
  assert.equal(result.code, 0, result.stderr);
  const toolResult = fake.requests[1].body.messages.at(-1).content;
  assert.match(
    toolResult,
    /^\[the sandbox could not start the command \(exited with code 1: bwrap: execvp .*node( \(deleted\))?: No such file or directory\)\]\n\[exit code: 127\]$/,
  );
});
