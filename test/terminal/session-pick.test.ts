// `-r` without an id: at a terminal a numbered list of this folder's recent sessions to pick from
// (tmux); headless the same list on stderr, the usage line, exit 2 and nothing run.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

function sessionIds(env: NodeJS.ProcessEnv): string[] {
  return readdirSync(join(env.HARNESS_HOME as string, "sessions"))
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.replace(".jsonl", ""))
    .sort();
}

test("headless -r without an id lists this folder's recent sessions on stderr with the usage line, exit 2, nothing run", async () => {
  const fake = await serve([{ reply: { text: "a" } }, { reply: { text: "b" } }]);
  const env = cleanEnv();
  const cwd = tempDir();
  await runCli([...fakeFlags(fake), "-p", "first task"], { env, cwd });
  await runCli([...fakeFlags(fake), "-p", "elsewhere"], { env, cwd: tempDir() });
  const [id] = sessionIds(env);
  for (const args of [["-r", "-p", "go on"], ["--resume"]]) {
    const result = await runCli([...fakeFlags(fake), ...args], { env, cwd });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, "");
    assert.equal(
      withoutSandboxWarning(result.stderr),
      `recent sessions in ${cwd}:\n1  ${id}  just now  first task  ${cwd}\nUsage: harness -r <id> [options] [prompt words...]   (a unique prefix of the id will do)\n`,
    );
  }
  assert.equal(fake.requests.length, 2, "no model call");
});

test("chat: -r without an id shows a numbered list and continues the session picked by its number", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
  const env = cleanEnv();
  const cwd = tempDir();
  await runCli([...fakeFlags(fake), "-p", "older task"], { env, cwd });
  await runCli([...fakeFlags(fake), "-p", "newer task"], { env, cwd });
  const [older, newer] = sessionIds(env);
  const term = TmuxTerminal.start({
    args: [...fakeFlags(fake), "-r"],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: env.HARNESS_HOME as string },
  });
  const screen = await term.waitFor(/resume which\? \[1-2, Enter: none\] *$/m, "the question");
  assert.match(screen, new RegExp(`^1  ${newer}  just now  newer task  ${cwd}$`, "m"));
  assert.match(screen, new RegExp(`^2  ${older}  just now  older task  ${cwd}$`, "m"));
  term.type("7");
  term.send(["Enter"]);
  await term.waitFor(/7 is not a number from 1 to 2[\s\S]*resume which\?/);
  term.type("2");
  term.send(["Enter"]);
  await term.waitFor(/^>\s*$/m, "the prompt");
  term.type("and now?");
  term.send(["Enter"]);
  await term.waitFor(/three/);
  assert.deepEqual(
    fake.requests[2].body.messages.slice(1).map((m: any) => m.content),
    ["older task", "one", "and now?"],
    "the picked session goes on",
  );
});
