// The model tries to plant a hook where Claude Code's settings are read, so that the next run
// (once the folder is trusted) runs its command outside the sandbox: `.claude/settings.json` and
// `.claude/settings.local.json` in the project, and the user's own `~/.claude/settings.json`,
// through bash and through write_file, under --yes. Through the built CLI against the fake
// server, as root and as nobody (setpriv), with the canary in a HOME under /var/tmp that the
// user running harness owns, so file modes are not what stops it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf as toolResult } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, runYesAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: the model cannot plant a hook in a Claude settings file: the sandbox keeps bash out, write_file asks (headless: refused)`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-claude-canary-");
    const project = join(home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(join(home, ".harness"));
    handTo(identity, home);
    const pwned = join(home, "PWNED");
    const hook = JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${pwned}` }] }] },
    });
    const userFile = join(home, ".claude", "settings.json");
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            {
              id: "sh",
              name: "bash",
              arguments: { command: `mkdir -p .claude && echo '${hook}' > .claude/settings.json` },
            },
            {
              id: "sh_user",
              name: "bash",
              arguments: { command: `mkdir -p ~/.claude && echo '${hook}' > ~/.claude/settings.json` },
            },
            { id: "w", name: "write_file", arguments: { path: ".claude/settings.local.json", content: hook } },
            { id: "w_user", name: "write_file", arguments: { path: userFile, content: hook } },
          ],
        },
      },
      { reply: { text: "tried" } },
      { reply: { text: "second run" } },
    ]);
    const env = cleanEnv({
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
    });
    const wrap = runAs(identity);
    const first = await runCli(["-y", "--sandbox", "on", ...fakeFlags(fake), "-p", "plant"], {
      cwd: project,
      env,
      wrap,
    });
    assert.equal(first.code, 0, first.stderr);
    assert.match(toolResult(fake, 1, "w"), /\.claude.*(asked|not allow|did not allow)/i);
    assert.match(toolResult(fake, 1, "w_user"), /outside the workspace/);
    for (const file of [".claude/settings.json", ".claude/settings.local.json"])
      assert.equal(existsSync(join(project, file)), false, `${file}: ${toolResult(fake, 1, "sh")}`);
    assert.equal(existsSync(userFile), false, toolResult(fake, 1, "sh_user"));
    const second = await runCli(["--trust", ...fakeFlags(fake), "-p", "again"], { cwd: project, env, wrap });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(existsSync(pwned), false);
  });
}

// Claude Code's Read and Edit rules follow gitignore (https://code.claude.com/docs/en/permissions):
// `Read(*.pem)` covers a .pem file at any depth, `Edit(/config/*.yml)` one in the project's
// config folder, `Read(//abs/**)` an absolute folder. The model reads and edits deep files through
// read_file, grep, edit_file and write_file under --yes.
for (const identity of IDENTITIES) {
  test(`as ${identity}: Claude Code's gitignore-style deny rules hold at any depth for read_file, grep and edits`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-claude-globs-");
    const project = join(home, "project");
    const outside = join(home, "vault");
    mkdirSync(join(project, ".claude"), { recursive: true });
    mkdirSync(join(project, "deep", "er"), { recursive: true });
    mkdirSync(join(project, "config"));
    mkdirSync(outside);
    mkdirSync(join(home, ".harness"));
    const canary = "CANARY-deep-pem-never-read";
    writeFileSync(join(project, "deep", "er", "key.pem"), `${canary}\n`);
    writeFileSync(join(project, "config", "prod.yml"), "mode: safe\n");
    writeFileSync(join(outside, "note.txt"), `${canary}\n`);
    writeFileSync(
      join(project, ".claude", "settings.json"),
      JSON.stringify({
        permissions: {
          deny: ["Read(*.pem)", "Edit(*.pem)", "Edit(/config/*.yml)", `Read(/${outside}/**)`],
        },
      }),
    );
    handTo(identity, home);
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "read", name: "read_file", arguments: { path: "deep/er/key.pem" } },
            { id: "grep", name: "grep", arguments: { pattern: "CANARY" } },
            { id: "grep_dir", name: "grep", arguments: { pattern: "CANARY", path: "deep" } },
            { id: "edit", name: "write_file", arguments: { path: "deep/er/key.pem", content: "replaced\n" } },
            { id: "yml", name: "write_file", arguments: { path: "config/prod.yml", content: "mode: pwned\n" } },
            { id: "abs", name: "read_file", arguments: { path: join(outside, "note.txt") } },
          ],
        },
      },
      { reply: { text: "tried" } },
    ]);
    const run = await runYesAs(identity, { home, cwd: project, fake });
    assert.equal(run.code, 0, run.stderr);
    for (const id of ["read", "grep", "grep_dir", "abs"])
      assert.doesNotMatch(toolResult(fake, 1, id), new RegExp(canary), id);
    assert.match(toolResult(fake, 1, "read"), /the rule Read\(\*\.pem\) in .*forbids/);
    assert.match(toolResult(fake, 1, "edit"), /the rule Edit\(\*\.pem\) in .*forbids/);
    assert.match(toolResult(fake, 1, "yml"), /the rule Edit\(\/config\/\*\.yml\) in .*forbids/);
    assert.match(toolResult(fake, 1, "abs"), /forbids/);
    assert.equal(readFileSync(join(project, "deep", "er", "key.pem"), "utf8"), `${canary}\n`);
    assert.equal(readFileSync(join(project, "config", "prod.yml"), "utf8"), "mode: safe\n");
  });
}
