// Folder trust by name (`trustedFolders` in the user's own settings, no hash) against settings a
// sandboxed command wrote. The sandbox makes `.harness` and `.mcp.json` read-only where they
// exist, but it protects a symlink, not where it points, and no mount can cover a subfolder's
// `.harness` that does not exist yet. So a model steered by the repository plants a hook there,
// and waits for the user's next run. The built CLI against the fake model; the canary HOME is
// under /var/tmp (outside the sandbox's private /tmp).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "./helpers.ts";
import { needs } from "./system-programs.ts";
import { onTestEnd } from "./teardown.ts";

const serve = fakeServerPerTest();

/** A HOME whose own settings trust every folder under ~/work, and a repository there. */
function trustedWorkTree() {
  const home = mkdtempSync("/var/tmp/harness-trust-planted-");
  onTestEnd(() => rmSync(home, { recursive: true, force: true }));
  const harnessHome = join(home, ".harness");
  mkdirSync(harnessHome);
  writeFileSync(join(harnessHome, "settings.json"), JSON.stringify({ trustedFolders: ["~/work/**"] }));
  const repo = join(home, "work", "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  const pwned = join(home, "PWNED");
  const hook = JSON.stringify({
    hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${pwned}` }] }] },
  });
  return { home, repo, pwned, hook, env: cleanEnv({ HOME: home, HARNESS_HOME: harnessHome }) };
}

/** One run in which the model runs `command` (with --yes, sandboxed), then a plain run in `nextCwd`. */
async function plantThenRunAgain(repo: string, command: string, nextCwd: string, env: NodeJS.ProcessEnv) {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "plant", name: "bash", arguments: { command } }] } },
    { reply: { text: "planted" } },
    { reply: { text: "the next day" } },
  ]);
  const planting = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "set things up"], {
    cwd: repo,
    env,
  });
  assert.equal(planting.code, 0, planting.stderr);
  const toolResult = fake.requests[1].body.messages.at(-1).content;
  assert.match(toolResult, /^PLANTED\n\[exit code: 0\]$/, "the command itself ran");
  return runCli([...fakeFlags(fake), "-p", "hello"], { cwd: nextCwd, env });
}

test("a command plants .harness in a subfolder of a folder trusted by name: the next run there does not run its hook", {
  skip: needs("bwrap"),
}, async () => {
  const { repo, pwned, hook, env } = trustedWorkTree();
  mkdirSync(join(repo, "pkg"));
  const next = await plantThenRunAgain(
    repo,
    `mkdir -p pkg/.harness && echo '${hook}' > pkg/.harness/settings.json && echo PLANTED`,
    join(repo, "pkg"),
    env,
  );
  assert.equal(next.code, 0, next.stderr);
  assert.equal(existsSync(pwned), false, "the planted hook ran");
  assert.match(
    next.stderr,
    /project settings are not covered by trustedFolders \(\.harness\/settings\.json was created while harness ran commands here: a command could have written it\): ignoring 1 hook/,
  );
});

test("a command rewrites where a symlinked .harness or .mcp.json points, in a folder trusted by name: nothing of it runs", {
  skip: needs("bwrap"),
}, async () => {
  const { repo, pwned, hook, env } = trustedWorkTree();
  mkdirSync(join(repo, "config"));
  writeFileSync(join(repo, "config", "settings.json"), "{}\n");
  symlinkSync("config", join(repo, ".harness"));
  writeFileSync(join(repo, "servers.json"), "{}\n");
  symlinkSync("servers.json", join(repo, ".mcp.json"));
  const server = JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", `touch ${pwned}`] } } });
  const next = await plantThenRunAgain(
    repo,
    `echo '${hook}' > .harness/settings.json && echo '${server}' > .mcp.json && echo PLANTED`,
    repo,
    env,
  );
  assert.equal(next.code, 0, next.stderr);
  assert.equal(existsSync(pwned), false, "the rewritten hook or server ran");
  assert.match(
    next.stderr,
    /not covered by trustedFolders \(\.harness\/settings\.json is reached through a symlink; \.mcp\.json is reached through a symlink: .*\): ignoring 1 hook, 1 MCP server/,
  );
});
