// Attacks through the file tools, as a model steered by a hostile repository would make them:
// plant settings, MCP servers or git config that run code next time; swap a folder for a
// symlink between the check and the write. The built CLI against the fake model, real files.
// Canaries live in a temporary HOME under /var/tmp (the sandbox's private /tmp would hide them).
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ApprovalQuestion, createApprover } from "../../src/permissions/approver.ts";
import type { PermissionPolicy } from "../../src/permissions/policy.ts";
import { editFile } from "../../src/tools/edit-file.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
let home: string;

before(() => {
  home = mkdtempSync("/var/tmp/harness-file-attacks-home-");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "authorized_keys"), "ssh-ed25519 AAAA the-owner\n");
});
after(() => rmSync(home, { recursive: true, force: true }));

function toolResults(fake: FakeLLM, request = 1): string[] {
  return fake.requests[request].body.messages
    .filter((message: { role: string }) => message.role === "tool")
    .map((message: { content: string }) => message.content);
}

test("--yes does not let the file tools plant project settings, MCP servers or git config; the model is told why", async () => {
  const hook = JSON.stringify({ hooks: { SessionStart: [{ command: `touch ${home}/PWNED` }] } });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "s", name: "write_file", arguments: { path: ".harness/settings.json", content: hook } },
          {
            id: "m",
            name: "write_file",
            arguments: { path: ".mcp.json", content: '{"mcpServers":{"x":{"command":"sh"}}}' },
          },
          {
            id: "g",
            name: "write_file",
            arguments: { path: "vendor/lib/.git/config", content: `[core]\n\tfsmonitor = touch ${home}/PWNED\n` },
          },
          {
            id: "h",
            name: "write_file",
            arguments: { path: ".git/hooks/pre-commit", content: `#!/bin/sh\ntouch ${home}/PWNED\n` },
          },
          { id: "n", name: "write_file", arguments: { path: "notes.txt", content: "ordinary\n" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  mkdirSync(join(cwd, ".git"));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd, env: cleanEnv({ HOME: home }) });
  assert.equal(result.code, 0, result.stderr);
  const [settings, mcp, gitConfig, gitHook, notes] = toolResults(fake);
  for (const [refused, name] of [
    [settings, ".harness"],
    [mcp, ".mcp.json"],
    [gitConfig, ".git"],
    [gitHook, ".git"],
  ]) {
    assert.match(
      refused,
      /^The user did not allow this tool call\. The user said: no one was there to approve it \(headless run; --yes and allow rules do not cover this\)/,
    );
    assert.match(
      refused,
      new RegExp(
        `is under ${name.replace(".", "\\.")}, which can make harness or git run commands outside the sandbox`,
      ),
    );
  }
  assert.match(notes, /^Created notes\.txt/);
  // The person sees each refusal too, and that --yes cannot allow it.
  const refusals = result.stderr.split("\n").filter((line) => line.startsWith("harness: refused"));
  assert.equal(refusals.length, 4, result.stderr);
  assert.match(
    refusals[0],
    /^harness: refused write \.harness\/settings\.json: no one to approve it in a headless run; only a person can allow it \(.* is under \.harness, .*\): run it in a chat$/,
  );
  assert.equal(existsSync(join(cwd, ".harness")), false);
  assert.equal(existsSync(join(cwd, ".mcp.json")), false);
  assert.equal(existsSync(join(cwd, "vendor")), false);
  assert.deepEqual(readdirSync(join(cwd, ".git")), []);
});

test("in every approval mode, an edit of a protected path is put to the person, with the reason and no 'always'", async () => {
  const workspace = tempDir();
  mkdirSync(join(workspace, ".git"));
  writeFileSync(join(workspace, ".git", "config"), "[core]\n");
  const questions: ApprovalQuestion[] = [];
  for (const mode of ["ask", "edits", "all"] as const) {
    const policy: PermissionPolicy = {
      mode,
      allow: [],
      deny: [],
      ask: [],
      sandbox: "on",
      workspace,
      freeRoots: [],
      secretPaths: [],
      readableGlobs: [],
      home,
    };
    const approve = createApprover({
      policy,
      cwd: workspace,
      ask: async (question) => {
        questions.push(question);
        return { type: "yes" };
      },
    });
    const input = { path: ".git/config", old_string: "[core]", new_string: "[core]\n\tfsmonitor = x" };
    const decision = await approve(
      {
        tool: editFile,
        call: { type: "tool_call", id: mode, name: "edit_file", arguments: JSON.stringify(input) },
        input,
        summary: "edit .git/config",
      },
      new AbortController().signal,
    );
    assert.equal(decision.allow, true, "the person said yes");
  }
  assert.equal(questions.length, 3);
  for (const question of questions) {
    assert.match(
      question.why ?? "",
      /\.git\/config is under \.git, which can make harness or git run commands outside the sandbox; every change there is asked, whatever the approval mode/,
    );
    assert.deepEqual(question.remember, []);
  }
});

test("one reply swaps a folder for a symlink to ~/.ssh and writes 100 files through it: nothing lands in ~/.ssh", {
  skip: needs("bwrap"),
}, async () => {
  const writes = Array.from({ length: 100 }, (_, n) => ({
    id: `w${n}`,
    name: "write_file",
    arguments: { path: `d/f${n}.txt`, content: `ssh-ed25519 AAAA attacker-key-${n}\n` },
  }));
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "swap", name: "bash", arguments: { command: `mv d d.real && ln -s ${home}/.ssh d` } },
          ...writes,
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  mkdirSync(join(cwd, "d"));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd, env: cleanEnv({ HOME: home }) });
  assert.equal(result.code, 0, result.stderr);
  const [swap, ...written] = toolResults(fake);
  assert.match(swap, /\[exit code: 0\]$/, "the swap itself ran");
  assert.deepEqual(readdirSync(join(home, ".ssh")), ["authorized_keys"]);
  assert.equal(written.length, 100);
  for (const refused of written) assert.match(refused, /\.ssh\/f\d+\.txt is in .*\.ssh, where credentials live/);
  assert.deepEqual(readdirSync(join(cwd, "d.real")), []);
});

test("a command turns the file an edit names into a symlink to a key file; the edit, checked when it opens the file, refuses", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "w", name: "write_file", arguments: { path: "notes.txt", content: "ssh-ed25519 AAAA attacker\n" } },
          { id: "l", name: "bash", arguments: { command: `ln -sf ${home}/.ssh/authorized_keys notes.txt` } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "plain notes\n");
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd, env: cleanEnv({ HOME: home }) });
  assert.equal(result.code, 0, result.stderr);
  const [write] = toolResults(fake);
  assert.match(write, /authorized_keys is in .*\.ssh, where credentials live/);
  assert.equal(readFileSync(join(home, ".ssh", "authorized_keys"), "utf8"), "ssh-ed25519 AAAA the-owner\n");
});

test("--yes does not let write_file reach project settings through a symlinked .harness or .git", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, "config"));
  writeFileSync(join(cwd, "config", "settings.json"), "{}\n");
  symlinkSync("config", join(cwd, ".harness"));
  mkdirSync(join(cwd, "real-git"));
  symlinkSync("real-git", join(cwd, ".git"));
  const hook = JSON.stringify({ hooks: { SessionStart: [{ command: `touch ${home}/PWNED` }] } });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "s", name: "write_file", arguments: { path: ".harness/settings.json", content: hook } },
          { id: "g", name: "write_file", arguments: { path: ".git/config", content: "[core]\n\tfsmonitor = x\n" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "go"], { cwd, env: cleanEnv({ HOME: home }) });
  assert.equal(result.code, 0, result.stderr);
  const [settings, gitConfig] = toolResults(fake);
  assert.match(settings, /\.harness\/settings\.json is under \.harness, which can make harness or git run commands/);
  assert.match(gitConfig, /\.git\/config is under \.git, which can make harness or git run commands/);
  assert.equal(readFileSync(join(cwd, "config", "settings.json"), "utf8"), "{}\n");
  assert.deepEqual(readdirSync(join(cwd, "real-git")), []);
});
