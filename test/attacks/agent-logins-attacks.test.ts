// A model (steered by anything it read) reads the logins of the other coding agents and tools on
// the machine: Claude Code's ~/.claude.json (MCP tokens, API-key logins), Codex's config.toml and
// auth.json, Gemini CLI's, opencode's, pi's, Copilot's, aider's, Amp's, goose's; also where an
// environment variable moves them (CODEX_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME). Under --yes,
// through bash (cat, a recursive grep of the home folder), read_file and the grep tool. The built
// CLI against the fake model, with the sandbox, as root and as nobody; the canary HOME is under
// /var/tmp.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runYesAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const CANARY = "CANARY-agent-login-never-readable";
/** Home-relative files of other agents that hold tokens, each holding the canary. */
const LOGINS = [
  ".claude.json",
  ".claude/.credentials.json",
  ".codex/config.toml",
  ".codex/auth.json",
  ".gemini/oauth_creds.json",
  ".gemini/.env",
  ".local/share/opencode/auth.json",
  ".pi/agent/auth.json",
  ".config/github-copilot/apps.json",
  ".copilot/config.json",
  ".config/gh/hosts.yml",
  ".aider.conf.yml",
  ".env",
  ".local/share/amp/secrets.json",
  ".config/goose/secrets.yaml",
  // Moved by the environment below.
  "elsewhere/codex/auth.json",
  "elsewhere/config/gh/hosts.yml",
  "elsewhere/data/opencode/auth.json",
];

for (const identity of IDENTITIES) {
  test(`as ${identity}: under --yes no tool reads another agent's login, wherever its variables put it`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-agent-logins-");
    const project = join(home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(join(home, ".harness"));
    for (const login of LOGINS) {
      mkdirSync(join(home, login, ".."), { recursive: true });
      writeFileSync(join(home, login), `token = "${CANARY}"\n`);
    }
    handTo(identity, home);
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            ...LOGINS.map((login, index) => ({
              id: `cat${index}`,
              name: "bash",
              arguments: { command: `cat ~/${login}` },
            })),
            { id: "grep_r", name: "bash", arguments: { command: "grep -r CANARY ~ ; echo END" } },
            ...LOGINS.map((login, index) => ({
              id: `read${index}`,
              name: "read_file",
              arguments: { path: join(home, login) },
            })),
            { id: "grep_tool", name: "grep", arguments: { pattern: "CANARY", path: home } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const elsewhere = join(home, "elsewhere");
    const run = await runYesAs(identity, {
      home,
      cwd: project,
      fake,
      env: {
        CODEX_HOME: join(elsewhere, "codex"),
        XDG_CONFIG_HOME: join(elsewhere, "config"),
        XDG_DATA_HOME: join(elsewhere, "data"),
      },
    });
    assert.equal(run.code, 0, run.stderr);
    const ids = ["grep_r", "grep_tool", ...LOGINS.flatMap((_, index) => [`cat${index}`, `read${index}`])];
    for (const id of ids) assert.doesNotMatch(toolResultOf(fake, 1, id) ?? "", new RegExp(CANARY), id);
    for (const [index, login] of LOGINS.entries())
      assert.match(toolResultOf(fake, 1, `read${index}`), /where credentials live/, login);
    assert.match(toolResultOf(fake, 1, "grep_r"), /END/, "the recursive grep ran");
  });
}
