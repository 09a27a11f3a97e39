// The fake server keeps Anthropic's message threads as the API does (anthropic-threads.ts):
// create, continue with only the new messages, expiry, one continuation per reply, the
// fingerprint, and the error bodies. Driven over HTTP, as the adapter drives it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { THREAD_TTL_MS, THREADS_BETA } from "../support/fake-llm/anthropic-threads.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const start = fakeServerPerTest();

const BASE = { model: "claude-sonnet-4-5", max_tokens: 100, stream: true };
const SYSTEM = [{ type: "text", text: "be brief" }];
const TOOLS = [{ name: "echo", description: "echo", input_schema: { type: "object" } }];
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });

async function post(server: FakeLLM, body: unknown, beta = true): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(beta ? { "anthropic-beta": `other-beta,${THREADS_BETA}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const idOf = (text: string) => /"id":"(msg_[^"]+)"/.exec(text)?.[1];
const errorOf = (text: string) => JSON.parse(text) as { type: string; error: { type: string; message: string } };

function create(first = "hello") {
  return { ...BASE, system: SYSTEM, tools: TOOLS, messages: [user(first)], thread: { type: "create" } };
}
function cont(previous: string | undefined, text: string, extra: Record<string, unknown> = {}) {
  return { ...BASE, messages: [user(text)], thread: { type: "continue", previous_message_id: previous }, ...extra };
}

test("a continue sends only the new messages; the model reads the whole conversation", async () => {
  const server = await start([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const first = await post(server, create());
  assert.equal(first.status, 200);
  const id = idOf(first.text);
  assert.match(id ?? "", /^msg_thread_/);
  const second = await post(server, cont(id, "more"));
  assert.equal(second.status, 200);
  assert.notEqual(idOf(second.text), id);
  const [created, continued] = server.requests;
  assert.equal(created.thread, "create");
  assert.equal(continued.thread, "continue");
  assert.deepEqual(continued.conversation.system, SYSTEM);
  assert.deepEqual(continued.conversation.tools, TOOLS);
  assert.deepEqual(
    continued.conversation.messages.map((m: { role: string; content: Array<{ text: string }> }) => [
      m.role,
      m.content[0].text,
    ]),
    [
      ["user", "hello"],
      ["assistant", "one"],
      ["user", "more"],
    ],
  );
  assert.ok(continued.bytes < created.bytes, "the continue is the smaller upload");
});

test("each reply is continued once; a second continue is refused with the API's error body", async () => {
  const server = await start([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const id = idOf((await post(server, create())).text);
  assert.equal((await post(server, cont(id, "a"))).status, 200);
  const again = await post(server, cont(id, "b"));
  assert.equal(again.status, 409);
  assert.equal(errorOf(again.text).type, "error");
  assert.equal(errorOf(again.text).error.type, "thread_already_continued");
});

test("a continue while another is answering from the same reply is refused as in flight", async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = async () => {
    await gate;
    return { reply: { text: "slow answer" } };
  };
  const server = await start([{ reply: { text: "one" } }, held]);
  const id = idOf((await post(server, create())).text);
  const slow = post(server, cont(id, "a"));
  while (server.requests.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const raced = await post(server, cont(id, "b"));
  assert.equal(raced.status, 409);
  assert.equal(errorOf(raced.text).error.type, "thread_continue_in_flight");
  release();
  assert.equal((await slow).status, 200);
});

test("a thread expires five minutes after its last request: the continue answers 404", async () => {
  let now = 1_000_000;
  const server = await start([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  server.threads.clock = () => now;
  const id = idOf((await post(server, create())).text);
  now += THREAD_TTL_MS - 1;
  const kept = await post(server, cont(id, "in time"));
  assert.equal(kept.status, 200);
  now += THREAD_TTL_MS + 1;
  const lost = await post(server, cont(idOf(kept.text), "too late"));
  assert.equal(lost.status, 404);
  assert.equal(errorOf(lost.text).error.type, "thread_not_found");
});

test("a continue with another model or thinking, with system or tools, or without the beta, is refused", async () => {
  const server = await start([{ reply: { text: "one" } }]);
  const id = idOf((await post(server, create())).text);
  const model = await post(server, cont(id, "x", { model: "claude-opus-4-1" }));
  assert.equal(model.status, 400);
  assert.equal(errorOf(model.text).error.type, "thread_fingerprint_mismatch");
  const thinking = await post(server, cont(id, "x", { thinking: { type: "enabled", budget_tokens: 2048 } }));
  assert.equal(errorOf(thinking.text).error.type, "thread_fingerprint_mismatch");
  const system = await post(server, cont(id, "x", { system: SYSTEM }));
  assert.equal(system.status, 400);
  assert.equal(errorOf(system.text).error.type, "invalid_request_error");
  const noBeta = await post(server, cont(id, "x"), false);
  assert.equal(noBeta.status, 400);
  assert.equal(errorOf(noBeta.text).error.type, "invalid_request_error");
  assert.equal(server.remaining, 0);
});

test("a reply that failed leaves the thread where it was: the same reply can be continued", async () => {
  const server = await start([{ reply: { text: "one" } }, { status: 529 }, { reply: { text: "two" } }]);
  const id = idOf((await post(server, create())).text);
  assert.equal((await post(server, cont(id, "a"))).status, 529);
  assert.equal((await post(server, cont(id, "a"))).status, 200);
});

test("an unknown reply id is a 404, and the continue's messages are checked against the thread's", async () => {
  const server = await start([{ reply: { text: "one", toolCalls: [{ id: "toolu_9", name: "echo", arguments: {} }] } }]);
  assert.equal((await post(server, cont("msg_nowhere", "x"))).status, 404);
  const id = idOf((await post(server, create())).text);
  // A tool result answering the thread's own tool_use is valid only together with the thread.
  server.push({ reply: { text: "done" } });
  const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }] };
  const answered = await post(server, { ...cont(id, ""), messages: [result] });
  assert.equal(answered.status, 200);
  assert.deepEqual(server.errors, []);
});
