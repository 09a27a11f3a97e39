// Text from someone else reaches the terminal harmless: a results file (`harness batch report`),
// an untrusted repository's bad rule (printed at every start, trusted or not), a session's title
// (`harness sessions`) and an MCP server's tool description (`harness mcp list`) each try to
// write the clipboard (OSC 52), plant a link (OSC 8) and clear the screen (CSI 2J). Each comes
// out with its control characters shown as escapes. A results file with a field of the wrong
// type is refused with its line and field named, not a crash.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07";
const LINK = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07";
const CLEAR = "\x1b[2J\x1b[3J\x9b2J\x1bc";
const ATTACK = `${CLIPBOARD}${LINK}${CLEAR}`;
/** Any byte a terminal obeys: ESC, BEL, CSI (U+009B) or another C1 control, a bidirectional override. */
const OBEYED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function assertHarmless(output: string, what: string): void {
  assert.doesNotMatch(output, OBEYED, `${what} reached the terminal raw:\n${JSON.stringify(output)}`);
  assert.match(output, /\\e\]52;c;cm0gLXJmIH4=\\a/, `${what}: the clipboard sequence is shown, not obeyed`);
}

function resultLine(fields: Record<string, unknown>): string {
  return `${JSON.stringify({
    runId: "r1",
    provider: "openai",
    model: `model ${ATTACK}`,
    api: "chat",
    thinking: null,
    harnessVersion: "0.1.0",
    id: `task ${ATTACK}`,
    status: "failed",
    attempt: 1,
    answer: "",
    turns: 2,
    tokens: { input: 10, output: 5, cached: 0 },
    cost: 0.001,
    durationMs: 1000,
    finishedAt: "2026-01-01T00:00:00.000Z",
    testExitCode: 1,
    sessionId: null,
    sessionPath: null,
    workdir: null,
    diff: null,
    error: `broke ${ATTACK}`,
    ...fields,
  })}\n`;
}

test("batch report of someone else's results file shows their escape sequences instead of obeying them", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "theirs.jsonl"), resultLine({}) + resultLine({ id: "second", status: "ok" }));
  writeFileSync(join(dir, "other.jsonl"), resultLine({ runId: "r2", model: `b ${ATTACK}` }));
  const result = await runCli(["batch", "report", "theirs.jsonl", "other.jsonl"], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /task \\e\]52/, "the task's id is in the report, shown");
  assertHarmless(result.stdout, "the report");
  assert.doesNotMatch(result.stderr, OBEYED);
});

test("a results file with a string where a number belongs is refused with its line and field, not a crash", async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, "theirs.jsonl"),
    resultLine({ id: "one" }) + resultLine({ id: "two", turns: "<img src=x onerror=alert(1)>" }),
  );
  const result = await runCli(["batch", "report", "theirs.jsonl", "--html", "report.html"], { cwd: dir });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /^harness: .*theirs\.jsonl:2: turns: .*number.*not a task's result$/m);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  writeFileSync(join(dir, "tokens.jsonl"), resultLine({ tokens: { input: "9" } }));
  const tokens = await runCli(["batch", "report", "tokens.jsonl"], { cwd: dir });
  assert.equal(tokens.code, 2, tokens.stderr);
  assert.match(tokens.stderr, /tokens\.jsonl:1: tokens\.input: /);
});

test("an untrusted repository's bad rule is reported with its escape sequences shown", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  writeFileSync(join(cwd, ".harness", "settings.json"), JSON.stringify({ permissions: { deny: [`Bash(${ATTACK}`] } }));
  const fake = await serve([{ reply: { text: "hello" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd });
  assert.equal(result.code, 2, "a rule that cannot be read stops a headless run");
  assert.match(result.stderr, /is not a rule/);
  assertHarmless(result.stderr, "the rule's error");
});

test("harness sessions shows a session title's escape sequences instead of obeying them", async () => {
  const env = cleanEnv();
  const fake = await serve([{ reply: { text: "hello" } }]);
  const run = await runCli([...fakeFlags(fake), "-p", `title ${ATTACK}\nforged line`], { env });
  assert.equal(run.code, 0, run.stderr);
  const listed = await runCli(["sessions"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assertHarmless(listed.stdout, "the session list");
  assert.equal(listed.stdout.trimEnd().split("\n").length, 1, "the title's newline forged no second entry");
});

test("harness mcp list shows a server's escape sequences instead of obeying them", async () => {
  const home = tempDir("harness-home-");
  const server = join(ROOT, "test", "support", "fixtures", "mcp", "hostile-server.mjs");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      mcpServers: {
        hostile: { command: process.execPath, args: [server] },
        [`missing${CLIPBOARD}`]: { command: `/nonexistent/${CLEAR}` },
      },
    }),
  );
  const result = await runCli(["mcp", "list"], { env: cleanEnv({ HARNESS_HOME: home }) });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /hostile__innocent {2}Reads /);
  assertHarmless(result.stdout, "the server list");
  assert.doesNotMatch(result.stderr, OBEYED);
});
