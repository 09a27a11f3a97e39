// Sessions through the built CLI: every run is recorded, -c / -r continue one, `harness sessions` lists them.
import assert from "node:assert/strict";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";

const serve = fakeServerPerTest();

function sessionFiles(env: NodeJS.ProcessEnv): string[] {
  return readdirSync(join(env.HARNESS_HOME as string, "sessions"))
    .filter((name) => name.endsWith(".jsonl"))
    .sort();
}

function readLines(env: NodeJS.ProcessEnv, file: string): any[] {
  return readFileSync(join(env.HARNESS_HOME as string, "sessions", file), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** The user and assistant texts a request sent, in order (system prompt left out). */
function conversationOf(request: { body: any }): string[] {
  return request.body.messages.filter((m: any) => m.role !== "system").map((m: any) => `${m.role}: ${m.content ?? ""}`);
}

test("a one-shot run is recorded; --continue carries on in the same file with the same provider and model", async () => {
  const fake = await serve([{ reply: { text: "first answer" } }, { reply: { text: "second answer" } }]);
  const env = cleanEnv({ OPENAI_API_KEY: "sk-secret-key-123" });
  const cwd = tempDir();
  const first = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "first question"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const start = JSON.parse(first.stdout.split("\n")[0]);
  const [file] = sessionFiles(env);
  assert.equal(file, `${start.sessionId}.jsonl`, "the start event names the session");

  // No provider flags: the stored provider, base URL and model are used.
  const second = await runCli(["--continue", "-p", "second question"], { env, cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, "second answer\n");
  assert.deepEqual(sessionFiles(env), [file]);
  assert.equal(fake.requests[1].body.model, "fake-model");
  assert.deepEqual(conversationOf(fake.requests[1]), [
    "user: first question",
    "assistant: first answer",
    "user: second question",
  ]);

  const lines = readLines(env, file);
  assert.deepEqual(lines[0], {
    ...lines[0],
    type: "session",
    id: start.sessionId,
    cwd,
    provider: "openai",
    model: "fake-model",
    baseUrl: fake.baseUrl,
  });
  assert.deepEqual(
    lines.filter((l) => l.type === "message").map((l) => `${l.message.role}: ${l.message.content[0].text}`),
    ["user: first question", "assistant: first answer", "user: second question", "assistant: second answer"],
  );
  assert.doesNotMatch(
    readFileSync(join(env.HARNESS_HOME as string, "sessions", file), "utf8"),
    /sk-secret-key-123/,
    "API keys never reach the session file",
  );
});

test("a session keeps its wire API: -c goes on with --api responses, and -c --api chat switches it for later resumes too", async () => {
  const fake = await serve(["one", "two", "three", "four"].map((text) => ({ reply: { text } })));
  const env = cleanEnv({ OPENAI_API_KEY: "k" });
  const cwd = tempDir();
  const run = (...args: string[]) => runCli(args, { env, cwd });
  assert.equal((await run(...fakeFlags(fake), "--api", "responses", "-p", "first")).stdout, "one\n");
  assert.equal((await run("-c", "-p", "second")).stdout, "two\n");
  assert.equal((await run("-c", "--api", "chat", "-p", "third")).stdout, "three\n");
  assert.equal((await run("-c", "-p", "fourth")).stdout, "four\n");
  assert.deepEqual(
    fake.requests.map((request) => request.path),
    ["/v1/responses", "/v1/responses", "/v1/chat/completions", "/v1/chat/completions"],
  );
  const [file] = sessionFiles(env);
  const lines = readLines(env, file);
  assert.equal(lines[0].api, "responses");
  assert.deepEqual(
    lines.filter((line) => line.type === "model_change").map(({ provider, model, api }) => ({ provider, model, api })),
    [{ provider: "openai", model: "fake-model", api: "openai" }],
    "only the resume that changed the API is recorded",
  );
});

test("--continue picks the latest session of this directory, not of another", async () => {
  const fake = await serve([{ reply: { text: "in A" } }, { reply: { text: "in B" } }, { reply: { text: "A again" } }]);
  const env = cleanEnv();
  const [dirA, dirB] = [tempDir(), tempDir()];
  await runCli([...fakeFlags(fake), "-p", "question in A"], { env, cwd: dirA });
  await runCli([...fakeFlags(fake), "-p", "question in B"], { env, cwd: dirB });
  const result = await runCli([...fakeFlags(fake), "-c", "-p", "back in A"], { env, cwd: dirA });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(conversationOf(fake.requests[2]), ["user: question in A", "assistant: in A", "user: back in A"]);
  const none = await runCli([...fakeFlags(fake), "-c", "-p", "x"], { env, cwd: tempDir() });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no session to continue in/);
});

test("--resume takes an id prefix; an ambiguous or unknown one is a usage error", async () => {
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "resumed" } }]);
  const env = cleanEnv();
  const cwd = tempDir();
  await runCli([...fakeFlags(fake), "-p", "session one"], { env, cwd });
  await runCli([...fakeFlags(fake), "-p", "session two"], { env, cwd });
  const [firstFile] = sessionFiles(env);
  const firstId = firstFile.replace(".jsonl", "");
  const prefix = firstId.slice(0, -4); // unique: the random part differs

  const resumed = await runCli([...fakeFlags(fake), "-r", prefix, "-p", "more"], { env, cwd: tempDir() });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(conversationOf(fake.requests[2]), ["user: session one", "assistant: one", "user: more"]);

  const ambiguous = await runCli([...fakeFlags(fake), "-r", "m", "-p", "x"], { env, cwd });
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /^harness: session id "m" is ambiguous: it matches \S+, \S+; give more characters\n$/);
  const unknown = await runCli([...fakeFlags(fake), "-r", "zzz", "-p", "x"], { env, cwd });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no session with id "zzz"; list them with harness sessions/);
  assert.equal(fake.requests.length, 3, "no model call for a session that was not found");
});

test("a torn last line is reported once and the session goes on", async () => {
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
  const env = cleanEnv();
  const cwd = tempDir();
  await runCli([...fakeFlags(fake), "-p", "first"], { env, cwd });
  const [file] = sessionFiles(env);
  appendFileSync(
    join(env.HARNESS_HOME as string, "sessions", file),
    '{"type":"message","at":"x","message":{"role":"user","cont',
  );
  const second = await runCli(["-c", "-p", "second"], { env, cwd });
  assert.equal(second.code, 0);
  assert.equal(second.stderr.match(/skipped a torn last line/g)?.length, 1);
  const third = await runCli(["-c", "-p", "third"], { env, cwd });
  assert.equal(withoutSandboxWarning(third.stderr), "");
  assert.deepEqual(conversationOf(fake.requests[2]), [
    "user: first",
    "assistant: one",
    "user: second",
    "assistant: two",
    "user: third",
  ]);
});

test("harness sessions lists id, time, directory, turns and first prompt, newest first", async () => {
  const fake = await serve([{ reply: { text: "a" } }, { reply: { text: "b" } }, { reply: { text: "c" } }]);
  const env = cleanEnv();
  const [dirA, dirB] = [tempDir(), tempDir()];
  await runCli([...fakeFlags(fake), "-p", "the first prompt"], { env, cwd: dirA });
  await runCli([...fakeFlags(fake), "-c", "-p", "a follow-up"], { env, cwd: dirA });
  await runCli([...fakeFlags(fake), "-p", `a long prompt ${"x".repeat(100)}`], { env, cwd: dirB });
  const list = await runCli(["sessions"], { env });
  assert.equal(list.code, 0);
  const rows = list.stdout.trimEnd().split("\n");
  assert.equal(rows.length, 2);
  const ids = sessionFiles(env).map((f) => f.replace(".jsonl", ""));
  assert.match(
    rows[0],
    new RegExp(`^${ids[1]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  ${dirB}  1 turn  a long prompt x+…$`),
  );
  assert.match(
    rows[1],
    new RegExp(`^${ids[0]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  ${dirA}  2 turns  the first prompt$`),
  );
  const empty = await runCli(["sessions"], { env: cleanEnv() });
  assert.equal(empty.code, 0);
  assert.equal(empty.stdout, "");
  assert.equal(empty.stderr, "no sessions yet\n");
});
