// A harness killed with SIGKILL cannot remove the placeholders its sandbox made for missing
// protected names (an empty .git and .harness, a `{}` .mcp.json); an empty .git left behind
// breaks git in that folder. The next harness to set up a sandbox removes them, if unchanged.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, signalOnceFileExists, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("placeholders left by a harness killed with SIGKILL are removed by the next sandboxed run, unless changed since", {
  skip: needs("bwrap"),
}, async () => {
  const fake = await serve([
    {
      reply: { toolCalls: [{ id: "slow", name: "bash", arguments: { command: "echo started > started; sleep 30" } }] },
    },
    { reply: { toolCalls: [{ id: "quick", name: "bash", arguments: { command: "true" } }] } },
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir("harness-placeholders-");
  const killed = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "wait"], {
    env,
    cwd,
    onSpawn: signalOnceFileExists(join(cwd, "started"), "SIGKILL"),
  });
  assert.equal(killed.signal, "SIGKILL", `code ${killed.code}: ${killed.stderr}`);
  // What the killed run left: the three placeholders, and its record of them.
  assert.deepEqual(readdirSync(join(cwd, ".git")), []);
  assert.deepEqual(readdirSync(join(cwd, ".harness")), []);
  assert.equal(readFileSync(join(cwd, ".mcp.json"), "utf8"), "{}\n");
  assert.equal(readdirSync(join(env.HARNESS_HOME!, "placeholders")).length, 1);
  // The user makes one of them real meanwhile: that one is theirs now.
  writeFileSync(join(cwd, ".mcp.json"), '{"mcpServers":{}}\n');

  const next = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "again"], { env, cwd });
  assert.equal(next.code, 0, next.stderr);
  assert.equal(existsSync(join(cwd, ".git")), false, "the stale empty .git is gone");
  assert.equal(existsSync(join(cwd, ".harness")), false);
  assert.equal(readFileSync(join(cwd, ".mcp.json"), "utf8"), '{"mcpServers":{}}\n', "a changed one stays");
  assert.deepEqual(readdirSync(join(env.HARNESS_HOME!, "placeholders")), [], "no record is left");
});
