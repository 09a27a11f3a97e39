// The sandbox starts its command helper with the very `node` that runs the harness. A Node
// installed under /tmp (a CI's unpacked binary, a copy) is where the sandbox puts a private /tmp,
// and every bash call failed inside bwrap while the run went on as if nothing were wrong.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { killAtTestEnd } from "../support/teardown.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

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

/** Where a run happens: its folder and environment (HARNESS_HOME), kept to continue its session. */
interface Place {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const newPlace = (): Place => ({ cwd: tempDir(), env: cleanEnv() });

/** The built CLI run by `node` with the sandbox on; `onSpawn` runs once the process has started. */
function runWith(
  node: string,
  fake: FakeLLM,
  {
    place = newPlace(),
    args = ["-p", "run it"],
    onSpawn,
  }: { place?: Place; args?: string[]; onSpawn?: () => void } = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = killAtTestEnd(
      spawn(node, [CLI, "-y", "--sandbox", "on", ...fakeFlags(fake), ...args], {
        cwd: place.cwd,
        env: place.env,
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

test("a command the sandbox cannot start stops the run: the model hears bwrap's reason (exit 127), the user an error line, exit 1, and the session is kept", {
  skip: bwrapMissing,
}, async () => {
  // The node binary is gone once the harness runs (a package upgrade under a long session): bwrap
  // cannot exec the helper, and no command can run until that is fixed. The run used to go on,
  // the model answered as if it had run something, and a script saw exit 0.
  const { copy } = nodeUnderTmp();
  const fake = await serve(script());
  const place = newPlace();
  const result = await runWith(copy, fake, { place, onSpawn: () => rmSync(copy) });
  assert.equal(result.code, 1, result.stderr);
  const cause =
    /the sandbox could not start the command \(exited with code 1: bwrap: execvp .*node( \(deleted\))?: No such file or directory\)/;
  const errorLine = withoutSandboxWarning(result.stderr).trim();
  assert.match(
    errorLine,
    new RegExp(`^error: ${cause.source}; no command can run in the sandbox until that is fixed: .*--sandbox off`),
  );
  assert.equal(errorLine.split("\n").length, 1, result.stderr);
  assert.equal(fake.requests.length, 1, "the model was not called again after the failed start");
  // The session holds the call and its result: continued with a node the sandbox can start, the
  // model sees what happened, paired, and can go on.
  const next = await serve([{ reply: { text: "resumed" } }]);
  const resumed = await runWith(process.execPath, next, { place, args: ["-c", "-p", "again"] });
  assert.equal(resumed.code, 0, resumed.stderr);
  const messages = next.requests[0].body.messages;
  assert.match(messages.at(-2).content, new RegExp(`^\\[${cause.source}\\]\\n\\[exit code: 127\\]$`));
  assert.equal(messages.at(-1).content, "again");
});

test("a background command the sandbox cannot start stops the run the same way", { skip: bwrapMissing }, async () => {
  const { copy } = nodeUnderTmp();
  const fake = await serve([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "sleep 30", background: true } }] } },
    { reply: { text: "started it" } },
  ]);
  const result = await runWith(copy, fake, { onSpawn: () => rmSync(copy) });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    withoutSandboxWarning(result.stderr),
    /^error: the sandbox could not start the command \(.*bwrap: execvp/,
  );
  assert.equal(fake.requests.length, 1, "the model was not called again after the failed start");
});

test("in the chat, a command the sandbox cannot start ends that prompt with the error, and the session goes on", {
  skip: bwrapMissing || needs("tmux"),
}, async () => {
  // The harness runs on a copy of node, deleted once the chat is up: the next command's helper
  // cannot start. The wrapper swaps that copy in for the node the terminal would start.
  const { copy } = nodeUnderTmp();
  const swap = `args=(); for a in "$@"; do [ "$a" = ${JSON.stringify(process.execPath)} ] && a=${JSON.stringify(copy)}; args+=("$a"); done; exec "\${args[@]}"`;
  const fake = await serve(script());
  const term = TmuxTerminal.start({
    args: ["-y", "--sandbox", "on", ...fakeFlags(fake)],
    cwd: tempDir(),
    env: { HARNESS_HOME: tempDir("harness-home-") },
    wrap: ["bash", "-c", swap, "swap"],
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  rmSync(copy);
  term.type("run it");
  term.send(["Enter"]);
  await term.waitFor(/^error: the sandbox could not start the command[\s\S]*^> $/m, "the error, then the prompt");
  assert.equal(fake.requests.length, 1, "the model was not called again after the failed start");
  term.type("are you there");
  term.send(["Enter"]);
  await term.waitFor(/^done$/m, "the next prompt's answer");
  const messages = fake.requests[1].body.messages;
  assert.match(messages.at(-2).content, /^\[the sandbox could not start the command .*\]\n\[exit code: 127\]$/);
  assert.equal(messages.at(-1).content, "are you there");
});
