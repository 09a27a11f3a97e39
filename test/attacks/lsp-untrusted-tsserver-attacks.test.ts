// A cloned repository plants its own TypeScript: node_modules/typescript/lib/tsserver.js (with a
// package.json that makes it look valid) whose code writes a canary in a HOME under /var/tmp.
// typescript-language-server runs the workspace's TypeScript when there is one; harness pins it to
// the TypeScript installed beside the server unless the folder is trusted (src/lsp/untrusted-folder.ts),
// so the untrusted run must leave no canary and still get the pinned server's diagnostics. The
// trusted run (--trust over a project setting: a folder without project settings is never trusted)
// shows the plant does run once allowed, so the assertion could fail. As root and as nobody.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, type Identity, runAs, skipAs } from "../support/identities.ts";
import { needsServer, SERVER_BIN } from "../support/language-servers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

function plantedClone(identity: Identity) {
  const home = canaryHomeDir("harness-lsp-tsserver-");
  const repo = join(home, "clone");
  const lib = join(repo, "node_modules", "typescript", "lib");
  mkdirSync(lib, { recursive: true });
  mkdirSync(join(repo, ".harness"));
  mkdirSync(join(home, ".harness"));
  const canary = join(home, "PWNED");
  writeFileSync(join(repo, "node_modules", "typescript", "package.json"), JSON.stringify({ version: "5.4.0" }));
  writeFileSync(join(lib, "tsserver.js"), `require("node:fs").writeFileSync(${JSON.stringify(canary)}, "ran");\n`);
  // A project setting, so that --trust has something to trust.
  writeFileSync(join(repo, ".harness", "settings.json"), JSON.stringify({ permissions: { allow: ["bash(ls)"] } }));
  writeFileSync(join(repo, "a.ts"), "export const count: number = 1;\n");
  handTo(identity, home);
  const env = cleanEnv({
    HOME: home,
    HARNESS_HOME: join(home, ".harness"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    PATH: `${SERVER_BIN}${delimiter}${process.env.PATH}`,
    // What is asserted is what the server says, not how fast a cold one is on a loaded machine.
    HARNESS_LSP_WAIT_MS: "60000",
  });
  return { repo, canary, env };
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: an untrusted clone's own tsserver.js never runs (the pinned one answers); trusted, it does`, {
    skip: needsServer("typescript-language-server") || needs("setpriv") || skipAs(identity),
  }, async () => {
    const { repo, canary, env } = plantedClone(identity);
    const fake = await serve([
      { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "a.ts" } }] } },
      {
        reply: {
          toolCalls: [
            { id: "break", name: "edit_file", arguments: { path: "a.ts", old_string: "= 1;", new_string: '= "one";' } },
          ],
        },
      },
      { reply: { text: "done" } },
      { reply: { toolCalls: [{ id: "read2", name: "read_file", arguments: { path: "a.ts" } }] } },
      {
        reply: {
          toolCalls: [
            { id: "fix", name: "edit_file", arguments: { path: "a.ts", old_string: '= "one";', new_string: "= 1;" } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const wrap = runAs(identity);
    const untrusted = await runCli([...fakeFlags(fake), "-y", "-p", "edit"], { cwd: repo, env, wrap });
    assert.equal(untrusted.code, 0, untrusted.stderr);
    assert.equal(existsSync(canary), false, "the clone's tsserver.js ran in an untrusted folder");
    assert.match(toolResultOf(fake, 2, "break"), /Type 'string' is not assignable to type 'number'/);

    // The plant works: trusted, typescript-language-server picks the workspace's TypeScript and runs it.
    // The edit waits for the server (the plant answers nothing, so a short bound: 10 s).
    const trustedEnv = { ...env, HARNESS_LSP_WAIT_MS: "10000" };
    const trusted = await runCli([...fakeFlags(fake), "-y", "--trust", "-p", "fix"], {
      cwd: repo,
      env: trustedEnv,
      wrap,
    });
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.equal(existsSync(canary), true, `trusted, the workspace's tsserver.js ran: ${trusted.stderr}`);
  });
}
