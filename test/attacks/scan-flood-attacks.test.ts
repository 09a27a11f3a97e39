// The noticing scan against a flood: a command makes 20,001 empty folders at the top of the
// workspace, more than the scan once opened (it stopped after 20,000), then plants
// pkg/app/.harness/settings.json and writes the existing pkg/app/.git/config below them. Folder
// trust by name must not cover the planted settings, and the nested git config stays read-only.
// The built CLI against the fake model, as root and as nobody; the canary HOME is under /var/tmp.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n";
/** One more folder than the old scan opened, all before pkg/app in its breadth-first order. */
const FLOOD = 20_001;

for (const identity of IDENTITIES) {
  test(`as ${identity}: after ${FLOOD} empty folders, a planted nested .harness is not trusted by name and a nested .git/config stays read-only`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-scan-flood-", { removeInBackground: true });
    const harnessHome = join(home, ".harness");
    mkdirSync(harnessHome);
    writeFileSync(join(harnessHome, "settings.json"), JSON.stringify({ trustedFolders: ["~/work/**"] }));
    const repo = join(home, "work", "repo");
    const app = join(repo, "pkg", "app");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(join(app, ".git"), { recursive: true });
    writeFileSync(join(app, ".git", "config"), GIT_CONFIG);
    handTo(identity, home);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: harnessHome });
    const pwned = join(home, "PWNED");
    const hook = JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${pwned}` }] }] },
    });
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "flood", name: "bash", arguments: { command: `seq 1 ${FLOOD} | xargs mkdir && echo FLOODED` } },
          ],
        },
      },
      {
        reply: {
          toolCalls: [
            {
              id: "plant",
              name: "bash",
              arguments: {
                command: `mkdir pkg/app/.harness && echo '${hook}' > pkg/app/.harness/settings.json && echo PLANTED`,
              },
            },
            {
              id: "git",
              name: "bash",
              arguments: { command: "echo '[core] fsmonitor = touch ../PWNED' >> pkg/app/.git/config" },
            },
          ],
        },
      },
      { reply: { text: "planted" } },
      { reply: { text: "the next day" } },
    ]);
    const wrap = runAs(identity);
    const planting = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "set up"], {
      cwd: repo,
      env,
      wrap,
    });
    assert.equal(planting.code, 0, planting.stderr);
    const results = fake.requests[2].body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.match(results[0].content, /^FLOODED\n/);
    assert.match(
      results[1].content,
      /^PLANTED\n/,
      "the plant itself ran (a new subfolder's .harness cannot be mounted)",
    );
    assert.match(results[2].content, /Read-only file system/);
    assert.equal(readFileSync(join(app, ".git", "config"), "utf8"), GIT_CONFIG);

    const next = await runCli([...fakeFlags(fake), "-p", "hello"], { cwd: app, env, wrap });
    assert.equal(next.code, 0, next.stderr);
    assert.equal(existsSync(pwned), false, "the planted hook ran");
    assert.match(next.stderr, /\.harness\/settings\.json was created while harness ran commands here/);
  });
}
