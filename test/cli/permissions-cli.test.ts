// Permissions end to end: the built CLI against the fake model, real settings files, the real
// sandbox, real child processes. Run `node scripts/build.mjs --no-types` first.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** The tool results the model got in the request after its tool calls. */
function toolResults(fake: FakeLLM, request = 1): string[] {
  return fake.requests[request].body.messages
    .filter((message: { role: string }) => message.role === "tool")
    .map((message: { content: string }) => message.content);
}

function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

test("headless without --yes: reads run, commands and edits are refused and the model is told why", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "r", name: "read_file", arguments: { path: "notes.txt" } },
          { id: "b", name: "bash", arguments: { command: "touch made-by-bash" } },
          { id: "w", name: "write_file", arguments: { path: "made-by-write.txt", content: "x" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "the notes\n");
  const result = await runCli([...fakeFlags(fake), "-p", "go"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const [read, command, write] = toolResults(fake);
  assert.match(read, /the notes/);
  for (const refused of [command, write])
    assert.equal(
      refused,
      "The user did not allow this tool call. The user said: no one was there to approve it (headless run without --yes or an allow rule)",
    );
  // And the person is told, one line per refused call: the call and what would have allowed it.
  const refusals = withoutSandboxWarning(result.stderr)
    .split("\n")
    .filter((line) => line.startsWith("harness: refused"));
  assert.equal(refusals.length, 2, result.stderr);
  // (Without bwrap every command asks, with no rule to offer: the line then says why instead.)
  assert.match(
    refusals[0],
    /^harness: refused bash> touch made-by-bash: no one to approve it in a headless run; --yes would allow it(, as would the allow rule bash\(touch\) in settings\.json| \(it asks because no sandbox: every command asks\))$/,
  );
  assert.equal(
    refusals[1],
    "harness: refused write made-by-write.txt: no one to approve it in a headless run; --approve edits or --yes would allow it, as would the allow rule write_file in settings.json",
  );
  assert.equal(existsSync(join(cwd, "made-by-bash")), false);
  assert.equal(existsSync(join(cwd, "made-by-write.txt")), false);
});

test("--approve edits: edits in the workspace run, a symlink out of it is denied, commands are refused", async () => {
  const outside = mkdtempSync("/var/tmp/harness-outside-");
  try {
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "w", name: "write_file", arguments: { path: "inside.txt", content: "ok\n" } },
            { id: "l", name: "write_file", arguments: { path: "escape/pwned.txt", content: "x" } },
            { id: "b", name: "bash", arguments: { command: "true" } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const cwd = tempDir();
    symlinkSync(outside, join(cwd, "escape"));
    const result = await runCli([...fakeFlags(fake), "--approve", "edits", "-p", "go"], { cwd });
    assert.equal(result.code, 0, result.stderr);
    const [written, escaped, command] = toolResults(fake);
    assert.match(written, /^Created inside\.txt/);
    assert.match(escaped, /is outside the workspace/);
    assert.match(command, /no one was there to approve it/);
    assert.equal(existsSync(join(outside, "pwned.txt")), false);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

// An allow rule auto-approves a command only inside the sandbox (see the test without bwrap below).
test("project rules: a trusted project's allowed command runs headless; its deny rule wins over --yes without trust, with its reason", {
  skip: needs("bwrap"),
}, async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "a", name: "bash", arguments: { command: "echo allowed && echo twice" } }] } },
    { reply: { text: "ok" } },
    { reply: { toolCalls: [{ id: "d", name: "bash", arguments: { command: "echo hi; rm -rf important" } }] } },
    { reply: { text: "ok" } },
  ]);
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  mkdirSync(join(cwd, "important"));
  writeFileSync(
    join(cwd, ".harness", "settings.json"),
    JSON.stringify({ permissions: { allow: ["bash(echo)"], deny: ["bash(rm -rf)"] } }),
  );
  const allowed = await runCli([...fakeFlags(fake), "--trust", "-p", "go"], { cwd });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(toolResults(fake, 1)[0], /^allowed\ntwice\n\[exit code: 0\]$/);
  const denied = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd });
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal(
    toolResults(fake, 3)[0],
    `This tool call was refused: the rule bash(rm -rf) in ${join(cwd, ".harness", "settings.json")} forbids \`rm -rf important\`.`,
  );
  assert.ok(existsSync(join(cwd, "important")));
});

test("a broken settings file stops the run naming the file and the field", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  const file = join(cwd, ".harness", "settings.json");
  writeFileSync(file, JSON.stringify({ permissions: { allow: ["bash(git status"] } }));
  const badRule = await runCli(["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "-p", "hi"], { cwd });
  assert.equal(badRule.code, 2);
  assert.match(badRule.stderr, new RegExp(`${file}: permissions\\.allow\\[0\\]: "bash\\(git status" is not a rule`));
  writeFileSync(file, JSON.stringify({ sandbox: { enabled: "no", netwrk: true } }));
  const badType = await runCli(["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "-p", "hi"], { cwd });
  assert.equal(badType.code, 2);
  assert.match(badType.stderr, /sandbox\.enabled: expected boolean/);
  assert.match(badType.stderr, /sandbox: unknown key "netwrk"/);
});

test("the API key never reaches the command's environment, the JSON output or any file in HARNESS_HOME", async () => {
  const key = "sk-proj-Zq8TESTKEYabcdefghijklmnop1234567890";
  const github = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
  const fake = await serve([
    { reply: { toolCalls: [{ id: "e", name: "bash", arguments: { command: 'env; echo "key=[$OPENAI_API_KEY]"' } }] } },
    { reply: { text: `Your key ends in ${key.slice(-6)}; I did not see it.` } },
  ]);
  const env = cleanEnv({ OPENAI_API_KEY: key, GITHUB_TOKEN: github, MY_SETTING: "visible-value" });
  const result = await runCli([...fakeFlags(fake), "-y", "--output", "stream-json", "-p", `use this key: ${key}`], {
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const [environment] = toolResults(fake);
  assert.match(environment, /^MY_SETTING=visible-value$/m);
  assert.match(environment, /^key=\[\]$/m);
  assert.doesNotMatch(environment, /OPENAI_API_KEY|GITHUB_TOKEN/);
  assert.ok(!environment.includes(key) && !environment.includes(github));
  assert.ok(!result.stdout.includes(key), "the prompt with the key was redacted in stream-json");
  assert.match(result.stdout, /use this key: \[redacted\]/);
  assert.ok(!result.stderr.includes(key));
  const home = env.HARNESS_HOME as string;
  for (const file of filesUnder(home)) assert.ok(!readFileSync(file, "utf8").includes(key), `${file} holds the key`);
});

test("the sandbox is on by default; only --sandbox off lets a command write outside the workspace", {
  skip: needs("bwrap"),
}, async () => {
  const outside = mkdtempSync("/var/tmp/harness-outside-");
  try {
    const touch = {
      reply: { toolCalls: [{ id: "t", name: "bash", arguments: { command: `touch ${outside}/made` } }] },
    };
    const fake = await serve([touch, { reply: { text: "ok" } }, touch, { reply: { text: "ok" } }]);
    const sandboxed = await runCli([...fakeFlags(fake), "-y", "-p", "go"]);
    assert.equal(sandboxed.code, 0, sandboxed.stderr);
    assert.match(toolResults(fake, 1)[0], /Read-only file system/);
    assert.equal(existsSync(join(outside, "made")), false);
    const unsandboxed = await runCli([...fakeFlags(fake), "-y", "--sandbox", "off", "-p", "go"]);
    assert.equal(unsandboxed.code, 0, unsandboxed.stderr);
    assert.ok(existsSync(join(outside, "made")));
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test("a bwrap that cannot start here is named with its own reason, and --sandbox on refuses to run", async () => {
  // The trial runs in the background while the harness loads; its stderr still reaches the warning.
  const bin = tempDir("harness-bin-");
  symlinkSync("/bin/bash", join(bin, "bash"));
  writeFileSync(join(bin, "bwrap"), "#!/bin/bash\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", {
    mode: 0o755,
  });
  const fake = await serve([{ reply: { text: "ok" } }]);
  const env = cleanEnv({ PATH: bin });
  const warned = await runCli([...fakeFlags(fake), "-p", "go"], { cwd: tempDir(), env });
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(
    warned.stderr,
    /^harness: warning: bwrap cannot start here \(bwrap: No permissions to create new namespace\), so commands run without a sandbox/m,
  );
  const required = await runCli([...fakeFlags(fake), "--sandbox", "on", "-p", "go"], { cwd: tempDir(), env });
  assert.equal(required.code, 1);
  assert.match(
    required.stderr,
    /--sandbox on, but bwrap cannot start here \(bwrap: No permissions to create new namespace\); allow unprivileged user namespaces/,
  );
});

test("without bwrap: one warning with the fix, allow rules stop auto-approving commands, --yes still runs them", async () => {
  // A PATH with bash but no bwrap.
  const bin = tempDir("harness-bin-");
  symlinkSync("/bin/bash", join(bin, "bash"));
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  writeFileSync(join(cwd, ".harness", "settings.json"), JSON.stringify({ permissions: { allow: ["bash(echo)"] } }));
  const echo = { reply: { toolCalls: [{ id: "e", name: "bash", arguments: { command: "echo ran" } }] } };
  const fake = await serve([echo, { reply: { text: "ok" } }, echo, { reply: { text: "ok" } }]);
  const env = cleanEnv({ PATH: bin });
  const asked = await runCli([...fakeFlags(fake), "-p", "go"], { cwd, env });
  assert.equal(asked.code, 0, asked.stderr);
  assert.equal(asked.stderr.match(/warning/g)?.length, 1);
  assert.match(
    asked.stderr,
    /bubblewrap \(bwrap\) is not installed.*Fix: install bubblewrap \(apt-get install bubblewrap/,
  );
  assert.match(toolResults(fake, 1)[0], /no one was there to approve it/);
  const forced = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd, env });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(toolResults(fake, 3)[0], "ran\n[exit code: 0]");
  const required = await runCli([...fakeFlags(fake), "--sandbox", "on", "-p", "go"], { cwd, env });
  assert.equal(required.code, 1);
  assert.match(required.stderr, /--sandbox on, but bubblewrap \(bwrap\) is not installed/);
});
