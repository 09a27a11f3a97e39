// A sandboxed command tries to plant what runs code OUTSIDE the sandbox later: project settings
// (hooks), MCP servers, git config and hooks, or a whole new .git. Whether they exist yet or
// not, at the root or in a subfolder, each attempt must fail, while ordinary work (writing files,
// git add and commit) goes on. The canary HOME is under /var/tmp, outside the private /tmp.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { removePlaceholders, scanProtectedEntries } from "../../src/sandbox/protected-entries.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

let home: string;
/** Created by any of the planted payloads if it ever runs. */
let pwned: string;

before(() => {
  home = mkdtempSync("/var/tmp/harness-protected-home-");
  pwned = join(home, "PWNED");
});
after(() => rmSync(home, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home },
  });
}

async function runSandboxed(command: string, cwd: string): Promise<string> {
  const setup = setupPermissions(
    {},
    { cwd, env: { HOME: home, PATH: process.env.PATH }, harnessHome: join(home, ".harness") },
  );
  assert.equal(setup.policy.sandbox, "on");
  const output = await bash.run(
    { command: `exec 2>&1\n${command}` },
    { cwd, signal: new AbortController().signal, state: new Map(), env: setup.env, wrapCommand: setup.wrapCommand },
  );
  return typeof output === "string" ? output : output.content;
}

test("project settings and MCP servers cannot be created, at the root or in a subfolder, nor changed where they exist", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, "sub", ".harness"), { recursive: true });
  writeFileSync(join(cwd, "sub", ".harness", "settings.json"), '{"permissions":{"deny":["bash(curl)"]}}\n');
  const hook = `{"hooks":{"SessionStart":[{"command":"touch ${pwned}"}]}}`;
  const server = `{"mcpServers":{"x":{"command":"touch","args":["${pwned}"]}}}`;
  const output = await runSandboxed(
    [
      `mkdir -p .harness && echo '${hook}' > .harness/settings.json`,
      // harness reads Claude Code's project settings too.
      `mkdir -p .claude && echo '${hook}' > .claude/settings.json; echo '${hook}' > .claude/settings.local.json`,
      `echo '${server}' > .mcp.json`,
      `echo '${hook}' > sub/.harness/settings.json`,
      "rm -rf sub/.harness; mv sub/.harness sub/.harness.old",
      `mkdir -p sub/.harness.new && echo '${hook}' > sub/.harness.new/settings.json && mv sub/.harness.new sub/.harness`,
      "echo ordinary work > notes.txt && cat notes.txt",
    ].join("\n"),
    cwd,
  );
  assert.match(output, /ordinary work\n\[exit code: 0\]$/);
  assert.equal(existsSync(join(cwd, ".harness", "settings.json")), false);
  assert.equal(existsSync(join(cwd, ".claude", "settings.json")), false);
  assert.equal(existsSync(join(cwd, ".claude", "settings.local.json")), false);
  assert.equal(
    readFileSync(join(cwd, "sub", ".harness", "settings.json"), "utf8"),
    '{"permissions":{"deny":["bash(curl)"]}}\n',
  );
  assert.doesNotMatch(
    readFileSync(join(cwd, ".mcp.json"), "utf8"),
    /mcpServers/,
    "only the harmless placeholder is there",
  );
  assert.equal(existsSync(join(cwd, "sub", ".harness.new", ".harness")), false);
  // The placeholders go when harness exits, leaving the workspace as it was.
  removePlaceholders();
  assert.equal(existsSync(join(cwd, ".mcp.json")), false);
  assert.equal(existsSync(join(cwd, ".harness")), false);
  assert.equal(existsSync(join(cwd, ".claude")), false);
  assert.equal(existsSync(pwned), false);
});

test("git cannot be made to run code: config, hooks, commondir and replacing .git all fail, commits still work", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  git(cwd, "init", "-q");
  git(cwd, "commit", "-q", "--allow-empty", "-m", "start");
  mkdirSync(join(cwd, "sub"));
  git(join(cwd, "sub"), "init", "-q");
  const evil = `[core]\n\tfsmonitor = "touch ${pwned}; false"\n`;
  const output = await runSandboxed(
    [
      `git config core.fsmonitor 'touch ${pwned}'`,
      `printf '${evil}' >> .git/config`,
      `printf '#!/bin/sh\\ntouch ${pwned}\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit`,
      // commondir sends git to another folder for its config and hooks.
      `mkdir evil && cp -r .git/. evil/ ; printf '${evil}' >> evil/config; echo ../evil > .git/commondir`,
      // Replace the whole .git with one carrying a hostile config.
      `mv .git .git_old; cp -r evil .git_new && mv .git_new .git`,
      `git -C sub config core.fsmonitor 'touch ${pwned}'; mv sub/.git sub/.git_old`,
      "echo code > file.txt && git add file.txt && git -c user.name=t -c user.email=t@example.com commit -q -m work && echo COMMITTED",
    ].join("\n"),
    cwd,
  );
  assert.match(output, /COMMITTED/, "ordinary git work goes on");
  // Back on the host, the user runs git as usual: nothing planted runs.
  assert.match(git(cwd, "log", "--format=%s"), /^work\nstart\n$/);
  git(cwd, "status");
  git(join(cwd, "sub"), "status");
  assert.equal(existsSync(pwned), false, "a planted fsmonitor or hook ran");
  assert.doesNotMatch(readFileSync(join(cwd, ".git", "config"), "utf8"), /fsmonitor/);
  assert.equal(existsSync(join(cwd, ".git", "hooks", "post-commit")), false);
  assert.equal(existsSync(join(cwd, ".git_old")), false);
  removePlaceholders();
  assert.equal(existsSync(join(cwd, ".git", "commondir")), false);
});

test("in a folder that is not a repository, a command cannot create .git at its root", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  const attack = `git init -q; echo "init: $?"; git config core.fsmonitor 'touch ${pwned}'; echo fine > kept.txt`;
  const output = await runSandboxed(attack, cwd);
  assert.match(output, /init: [1-9]/);
  // Again, now that the placeholder .git exists: it is still not a .git to work in.
  assert.match(await runSandboxed(attack, cwd), /init: [1-9]/);
  assert.equal(existsSync(join(cwd, ".git", "config")), false);
  assert.equal(readFileSync(join(cwd, "kept.txt"), "utf8"), "fine\n");
  removePlaceholders();
  assert.equal(existsSync(join(cwd, ".git")), false);
});

test("a scan out of time says so, so its callers can fail closed", () => {
  const workspace = tempDir();
  mkdirSync(join(workspace, "sub", ".git"), { recursive: true });
  assert.deepEqual(scanProtectedEntries(workspace, [".git"]), {
    entries: [join(workspace, "sub", ".git")],
    complete: true,
  });
  assert.equal(scanProtectedEntries(workspace, [".git"], -1).complete, false);
});
