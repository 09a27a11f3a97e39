// Resuming a session recorded in another folder never runs its tools in the folder harness was
// started in without a word: headless it moves to the recorded folder (one stderr line), --cwd
// wins when given, a vanished folder is a usage error; a chat asks (tmux). A bash `pwd` call is
// the witness of where the tools ran, the system prompt of which AGENTS.md was read.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** A reply that asks where the tools run, and leaves the answer in a file there. */
const PWD_CALL: ScriptStep = {
  reply: { toolCalls: [{ name: "bash", arguments: { command: "pwd; echo here > ran-here.txt" } }] },
};

/** Two folders with their own AGENTS.md, and one session recorded in the first. */
async function sessionInA(fake: FakeLLM) {
  const env = cleanEnv();
  const [dirA, dirB] = [tempDir(), tempDir()];
  writeFileSync(join(dirA, "AGENTS.md"), "Rules of folder A.\n");
  writeFileSync(join(dirB, "AGENTS.md"), "Rules of folder B.\n");
  const first = await runCli([...fakeFlags(fake), "-p", "start in A"], { env, cwd: dirA });
  assert.equal(first.code, 0, first.stderr);
  const [file] = readdirSync(join(env.HARNESS_HOME as string, "sessions")).filter((n) => n.endsWith(".jsonl"));
  return { env, dirA, dirB, id: file.replace(".jsonl", "") };
}

/** What the latest `pwd` call printed, as the model got it back. */
function pwdResult(fake: FakeLLM, request: number): string {
  const result = fake.requests[request].body.messages.findLast((m: any) => m.role === "tool");
  return result.content.split("\n")[0];
}

function systemPrompt(fake: FakeLLM, request: number): string {
  return fake.requests[request].body.messages[0].content;
}

test("-r of a session from another folder works in the recorded folder and says so in one line", async () => {
  const fake = await serve([{ reply: { text: "started" } }, PWD_CALL, { reply: { text: "done" } }]);
  const { env, dirA, dirB, id } = await sessionInA(fake);

  const result = await runCli([...fakeFlags(fake), "-y", "-r", id, "-p", "where are you?"], { env, cwd: dirB });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "done\n");
  assert.equal(
    withoutSandboxWarning(result.stderr),
    `harness: session ${id} was recorded in ${dirA}: working there (--cwd <dir> picks another folder)\n`,
  );
  assert.equal(pwdResult(fake, 2), dirA);
  assert.ok(existsSync(join(dirA, "ran-here.txt")) && !existsSync(join(dirB, "ran-here.txt")));
  assert.match(systemPrompt(fake, 1), /Rules of folder A/);
  assert.doesNotMatch(systemPrompt(fake, 1), /Rules of folder B/);
});

test("-r with an explicit --cwd works there, with a line naming the recorded folder", async () => {
  const fake = await serve([{ reply: { text: "started" } }, PWD_CALL, { reply: { text: "done" } }]);
  const { env, dirA, dirB, id } = await sessionInA(fake);

  const result = await runCli([...fakeFlags(fake), "-y", "--cwd", dirB, "-r", id, "-p", "where are you?"], {
    env,
    cwd: tempDir(),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    withoutSandboxWarning(result.stderr),
    `harness: session ${id} was recorded in ${dirA}; working in ${dirB}, as --cwd says\n`,
  );
  assert.equal(pwdResult(fake, 2), dirB);
  assert.match(systemPrompt(fake, 1), /Rules of folder B/);
  assert.doesNotMatch(systemPrompt(fake, 1), /Rules of folder A/);
});

test("-r of a session whose folder is gone is a usage error with one line, and nothing runs", async () => {
  const fake = await serve([{ reply: { text: "started" } }]);
  const { env, dirA, dirB, id } = await sessionInA(fake);
  rmSync(dirA, { recursive: true, force: true });

  const result = await runCli([...fakeFlags(fake), "-y", "-r", id, "-p", "carry on"], { env, cwd: dirB });
  assert.equal(result.code, 2);
  assert.equal(
    withoutSandboxWarning(result.stderr),
    `harness: session ${id} was recorded in ${dirA}, which no longer exists; give --cwd <dir> to continue it in another folder\n`,
  );
  assert.equal(result.stdout, "");
  assert.equal(fake.requests.length, 1, "no model call");
  const lines = readFileSync(join(env.HARNESS_HOME as string, "sessions", `${id}.jsonl`), "utf8")
    .trimEnd()
    .split("\n");
  assert.equal(lines.filter((line) => JSON.parse(line).type === "message").length, 2, "the session is untouched");
});

test("-r of a session from this very folder says nothing about folders", async () => {
  const fake = await serve([{ reply: { text: "started" } }, PWD_CALL, { reply: { text: "done" } }]);
  const { env, dirA, id } = await sessionInA(fake);
  const result = await runCli([...fakeFlags(fake), "-y", "-r", id, "-p", "again"], { env, cwd: dirA });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(withoutSandboxWarning(result.stderr), "");
  assert.equal(pwdResult(fake, 2), dirA);
});

/** A chat in folder B, started with `args`, against the fake server. */
async function chatInB(fake: FakeLLM, env: NodeJS.ProcessEnv, dirB: string, args: string[]) {
  const terminal = TmuxTerminal.start({
    args: [...fakeFlags(fake), "-y", ...args],
    cwd: dirB,
    env: { TERM: "xterm-256color", HARNESS_HOME: env.HARNESS_HOME as string },
  });
  return terminal;
}

const QUESTION = /\[s\]witch to .* {2}stay \[h\]ere \(its tools run in .*\) {2}\[c\]ancel > *$/m;
const PROMPT = /^>\s*$/m;

test("chat: -r of another folder's session asks; switching runs its tools there", { skip: needs("tmux") }, async () => {
  const fake = await serve([{ reply: { text: "started" } }, PWD_CALL, { reply: { text: "done in A" } }]);
  const { env, dirA, dirB, id } = await sessionInA(fake);
  const term = await chatInB(fake, env, dirB, ["-r", id]);
  const asked = await term.waitFor(QUESTION, "the folder question");
  assert.match(asked, new RegExp(`session ${id} was recorded in ${dirA}; this chat works in ${dirB}\\.`));
  term.type("s");
  term.send(["Enter"]);
  await term.waitFor(PROMPT, "the prompt");
  term.type("where are you?");
  term.send(["Enter"]);
  await term.waitFor(/done in A/);
  assert.equal(pwdResult(fake, 2), dirA);
  assert.match(systemPrompt(fake, 1), /Rules of folder A/);
});

test("chat: /resume of another folder's session asks; cancel keeps the chat, staying runs here and records the folder, switching moves", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([
    { reply: { text: "started" } },
    { reply: { text: "second one started" } },
    PWD_CALL,
    { reply: { text: "done in B" } },
    PWD_CALL,
    { reply: { text: "done in A" } },
  ]);
  const { env, dirA, dirB, id } = await sessionInA(fake);
  const other = await runCli([...fakeFlags(fake), "-p", "another in A"], { env, cwd: dirA });
  assert.equal(other.code, 0, other.stderr);
  const otherId = readdirSync(join(env.HARNESS_HOME as string, "sessions"))
    .filter((name) => name.endsWith(".jsonl") && !name.startsWith(id))[0]
    .replace(".jsonl", "");
  const term = await chatInB(fake, env, dirB, []);
  await term.waitFor(PROMPT, "the first prompt");

  term.type(`/resume ${id}`);
  term.send(["Enter"]);
  await term.waitFor(QUESTION, "the folder question");
  term.type("c");
  term.send(["Enter"]);
  await term.waitFor(new RegExp(`nothing resumed; session ${id} is left as it was`));

  term.type(`/resume ${id}`);
  term.send(["Enter"]);
  await term.waitFor(/nothing resumed[\s\S]*\[c\]ancel > *$/m, "the second question");
  term.type("h");
  term.send(["Enter"]);
  await term.waitFor(new RegExp(`resumed session ${id} .*; working in ${dirB}`));
  term.type("where now?");
  term.send(["Enter"]);
  await term.waitFor(/done in B/);
  assert.equal(pwdResult(fake, 3), dirB);
  // Staying is recorded: the session now works in B, so resuming it from B asks nothing, and listings say B.
  const entries = readFileSync(join(env.HARNESS_HOME as string, "sessions", `${id}.jsonl`), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    entries.filter((entry) => entry.type === "folder_change").map((entry) => entry.cwd),
    [dirB],
  );
  const listed = await runCli(["sessions"], { env });
  assert.match(
    listed.stdout,
    new RegExp(`^${id}  \\S+ \\S+  ${dirB}  2 turns  in use \\(pid \\d+\\)  start in A$`, "m"),
  );
  term.type(`/resume ${id}`);
  term.send(["Enter"]);
  await term.waitFor(
    new RegExp(`done in B[\\s\\S]*resumed session ${id} \\([^)]*\\)\\n`),
    "a resume without a question",
  );

  term.type(`/resume ${otherId}`);
  term.send(["Enter"]);
  await term.waitFor(
    new RegExp(`resumed session ${id}[\\s\\S]*\\[c\\]ancel > *$`, "m"),
    "the question for the other session",
  );
  term.type("s");
  term.send(["Enter"]);
  await term.waitFor(new RegExp(`leaving this session to continue ${otherId} in ${dirA}[\\s\\S]*>\\s*$`));
  term.type("and now?");
  term.send(["Enter"]);
  const screen = await term.waitFor(/done in A/);
  assert.equal(pwdResult(fake, 5), dirA);
  assert.match(systemPrompt(fake, 4), /Rules of folder A/);
  assert.doesNotMatch(screen, /resume with:/, "switching is not quitting");
});
