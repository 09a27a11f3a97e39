// Stored responses through the built CLI: a 50-step session on the Responses API against the fake
// that stores responses as OpenAI does uploads under half the bytes of the same session without,
// the model reads the same conversation at every step (the fake rebuilds it from what it stored),
// and each way the stored state is lost (expired, unknown, refused to store) is survived without a
// lost or repeated turn. stream-json and the session record what each request did; a session
// resumed on another model starts afresh with the whole conversation.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { STORED_TTL_MS } from "../support/fake-llm/responses-store.ts";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, jsonLines, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const STEPS = 50;
/** What goes wrong after the answer to request n: expiry, an account that stored nothing, a refusal to store. */
const EXPIRE_AFTER = new Set([10, 30]);
const UNSTORED_AFTER = new Set([20]);
const STORE_REFUSED_AFTER = 47;

/** A script of STEPS bash calls and an answer; `answered` gets each request the script answered. */
function script(server: () => FakeLLM, answered: RecordedRequest[], losses: boolean): ScriptStep[] {
  let now = 1_000_000;
  return Array.from({ length: STEPS + 1 }, (_, index) => (request: RecordedRequest): ScriptStep => {
    const n = index + 1;
    answered.push(request);
    const fake = server();
    fake.stored.clock = () => now;
    fake.stored.zeroDataRetention = false;
    if (losses && EXPIRE_AFTER.has(n)) now += STORED_TTL_MS + 1;
    if (losses && UNSTORED_AFTER.has(n)) fake.stored.zeroDataRetention = true;
    if (losses && n === STORE_REFUSED_AFTER) fake.stored.refusesStore = true;
    if (n > STEPS) return { reply: { text: "all done" } };
    return { reply: { toolCalls: [{ id: `call_${n}`, name: "bash", arguments: { command: "seq 1 1000" } }] } };
  });
}

async function session(serverState: "on" | "off", cwd: string) {
  const answered: RecordedRequest[] = [];
  let fake: FakeLLM | undefined;
  fake = await serve(script(() => fake as FakeLLM, answered, serverState === "on"));
  const env = cleanEnv({ OPENAI_API_KEY: "test-key", HARNESS_SERVER_STATE: serverState });
  const flags = ["--provider", "openai", "--api", "responses", "--base-url", fake.baseUrl, "--model", "gpt-5.1-codex"];
  const args = [...flags, "-y", "--sandbox", "off", "--max-turns", String(STEPS + 5), "--output", "stream-json"];
  const run = await runCli([...args, "-p", "go"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  return { fake, answered, env, run, flags };
}

test("50 steps on stored responses: under half the bytes, the same conversation at every step, every loss survived", async () => {
  const cwd = tempDir();
  const plain = await session("off", cwd);
  const stored = await session("on", cwd);

  assert.equal(plain.answered.length, STEPS + 1);
  assert.equal(stored.answered.length, STEPS + 1, "no turn lost or repeated");
  const seen = (request: RecordedRequest) => {
    const { store: _store, ...rest } = request.conversation;
    return rest;
  };
  stored.answered.forEach((request, index) => {
    assert.deepEqual(
      seen(request),
      seen(plain.answered[index]),
      `step ${index + 1}: the model read another conversation`,
    );
  });
  assert.deepEqual(stored.fake.stored.refusals, [
    "previous_response_not_found",
    "previous_response_not_found",
    "previous_response_not_found",
    "store_refused",
  ]);
  assert.deepEqual(stored.fake.errors, []);

  const sum = (requests: RecordedRequest[]) => requests.reduce((total, request) => total + request.bytes, 0);
  const withState = sum(stored.fake.requests);
  const without = sum(plain.fake.requests);
  assert.ok(withState * 2 < without, `with stored responses ${withState} bytes, without ${without}: not under half`);

  // stream-json: what each answered request did, and its size as the server saw it.
  const records = jsonLines(stored.run.stdout)
    .filter((event) => event.type === "message" && event.message.role === "assistant")
    .map((event) => event.message.thread);
  assert.equal(records.length, STEPS + 1);
  assert.deepEqual(
    records.map((record) => record.bytes),
    stored.answered.map((request) => request.bytes),
  );
  const modes = records.map((record) => record.mode);
  assert.equal(modes.filter((mode) => mode === "create").length, 1 + EXPIRE_AFTER.size + UNSTORED_AFTER.size);
  assert.deepEqual(modes.slice(STORE_REFUSED_AFTER), Array(STEPS + 1 - STORE_REFUSED_AFTER).fill("whole"));
  assert.equal(records[STORE_REFUSED_AFTER].refused, "store_refused");
  assert.equal(records[EXPIRE_AFTER.values().next().value as number].refused, "previous_response_not_found");

  const sessions = join(stored.env.HARNESS_HOME as string, "sessions");
  const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
  const kept = readFileSync(join(sessions, file), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.message?.role === "assistant")
    .map((entry) => entry.message.thread.mode);
  assert.deepEqual(kept, modes);
});

test("a resumed session on another model starts afresh with the whole conversation; chat completions send no state", async () => {
  const bash = (id: string): ScriptStep => ({
    reply: { toolCalls: [{ id, name: "bash", arguments: { command: "echo hi" } }] },
  });
  const fake = await serve([
    bash("call_1"),
    { reply: { text: "done" } },
    { reply: { text: "again" } },
    { reply: { text: "chat" } },
  ]);
  const env = cleanEnv({ OPENAI_API_KEY: "test-key", HARNESS_SERVER_STATE: "on" });
  const cwd = tempDir();
  const flags = ["--provider", "openai", "--base-url", fake.baseUrl, "-y", "--sandbox", "off"];
  const first = await runCli([...flags, "--api", "responses", "--model", "gpt-5.1-codex", "-p", "go"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const resumed = await runCli([...flags, "--api", "responses", "--model", "gpt-5.1", "--continue", "-p", "more"], {
    env,
    cwd,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  const [create, next, afresh] = fake.requests;
  assert.equal(create.body.store, true);
  assert.equal(next.body.previous_response_id, "resp_stored_1");
  assert.equal(afresh.body.previous_response_id, undefined, "another model, another process: no continue");
  assert.equal(afresh.body.store, true);
  assert.equal(afresh.body.input.length, 5, "the whole conversation: prompt, call, output, answer, prompt");
  const chat = await runCli([...flags, "--model", "gpt-5.1-codex", "-p", "chat"], { env, cwd });
  assert.equal(chat.code, 0, chat.stderr);
  const last = fake.requests.at(-1);
  assert.match(last?.path ?? "", /chat\/completions$/);
  assert.equal(last?.body.store, undefined);
  assert.equal(last?.body.previous_response_id, undefined);
});
