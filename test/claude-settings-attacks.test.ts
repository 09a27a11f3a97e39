// The model tries to plant a hook where Claude Code's settings are read, so that the next run
// (once the folder is trusted) runs its command outside the sandbox: `.claude/settings.json` and
// `.claude/settings.local.json` in the project, and the user's own `~/.claude/settings.json`,
// through bash and through write_file, under --yes. Through the built CLI against the fake
// server, as root and as nobody (setpriv), with the canary in a HOME under /var/tmp that the
// user running harness owns, so file modes are not what stops it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf as toolResult } from "./helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "./identities.ts";
import { needs } from "./system-programs.ts";

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
