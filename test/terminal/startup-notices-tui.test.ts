// The chat's first screen at 60x20 (issue 50) with a Claude Code setup that has five things to
// say (keys harness does not take, in three files, and an unknown key): the first start shows
// the prompt and one line of notices naming `harness doctor`, which lists them; a second start
// with the files unchanged shows none; after a file changes, the line comes once again.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, writeJson } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** One chat start at 60x20, left at once with /exit; the screen as it stood at the prompt. */
async function startChat(fake: FakeLLM, cwd: string, env: Record<string, string>): Promise<string> {
  const terminal = TmuxTerminal.start({ args: ["--trust", ...fakeFlags(fake)], cwd, env, columns: 60, rows: 20 });
  const screen = await terminal.waitFor(/^> $/m, "the chat prompt");
  terminal.type("/exit");
  await terminal.waitFor(/\/exit/);
  terminal.send(["Enter"]);
  await terminal.waitFor(/^\[exit 0\]$/m, "the chat ending");
  terminal.kill();
  return screen;
}

const noticeLines = (screen: string) => screen.split("\n").filter((line) => line.startsWith("harness:"));

test("at 60x20 setup notices take one line, once per change of their files; harness doctor lists them", {
  skip: needs("tmux"),
}, async () => {
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const claudeHome = tempDir("claude-home-");
  mkdirSync(join(cwd, ".claude"));
  writeJson(join(claudeHome, "settings.json"), { env: { FOO: "1" }, apiKeyHelper: "/bin/true" });
  writeJson(join(cwd, ".claude", "settings.json"), { enableAllProjectMcpServers: true, permisions: {} });
  writeJson(join(cwd, ".claude", "settings.local.json"), { disableAllHooks: true });
  const env = {
    ...(cleanEnv({ HARNESS_HOME: home, CLAUDE_CONFIG_DIR: claudeHome }) as Record<string, string>),
    TERM: "xterm-256color",
  };
  const fake = await serve([]);

  const first = await startChat(fake, cwd, env);
  assert.deepEqual(noticeLines(first), ["harness: 4 setup notices; harness doctor lists them"], first);
  assert.ok(first.split("\n").every((line) => line.length <= 60));
  const doctor = await runCli(["doctor"], { cwd, env });
  assert.equal(doctor.stdout.match(/notice at the last chat start here/g)?.length, 4, doctor.stdout);
  assert.match(doctor.stdout, /apiKeyHelper/);

  const second = await startChat(fake, cwd, env);
  assert.deepEqual(noticeLines(second), [], second);

  writeJson(join(cwd, ".claude", "settings.local.json"), { disableAllHooks: true, permissions: { deny: ["Write"] } });
  const third = await startChat(fake, cwd, env);
  assert.equal(noticeLines(third).length, 1, third);
});
