// The Anthropic adapter on message threads (anthropic-threads.ts), against the fake that keeps them
// as the API does: it continues where it can, falls back to one create on every refusal, starts a
// new thread whenever what the thread holds would differ, and never continues a reply twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import type { Provider } from "../../src/core/provider.ts";
import type { HarnessConfig } from "../../src/settings/config-file.ts";
import { resolveProvider } from "../../src/wiring/resolve-provider.ts";
import { type EchoHooks, echoTool } from "../support/echo-tool.ts";
import { THREAD_TTL_MS, THREADS_BETA, withoutCacheMarks } from "../support/fake-llm/anthropic-threads.ts";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { drain, fakeAnthropicProvider, fakeServerPerTest, tempDir } from "../support/helpers.ts";

const start = fakeServerPerTest();
const FAST_RETRY = { maxRetries: 2, baseDelayMs: 5 };

/** What a tool call does in the middle of a turn (a race from elsewhere); nothing by default. */
const hooks: EchoHooks = { duringTool: async () => {} };
const echo = echoTool(hooks);

const call = (text: string, id: string): ScriptStep => ({
  reply: { toolCalls: [{ id, name: "echo", arguments: { text } }] },
});
const answer = (text: string): ScriptStep => ({ reply: { text } });

async function run(provider: Provider, messages: Message[], prompt: string, system = "test system") {
  const { result } = await drain(
    runAgent({ provider, tools: [echo], system, cwd: tempDir(), messages, prompt, retry: FAST_RETRY }),
  );
  assert.equal(result.reason, "stop", result.error);
  return messages.filter((message): message is AssistantMessage => message.role === "assistant");
}

const threads = (server: FakeLLM) => server.requests.map((request) => request.body.thread?.type ?? "none");

/** Another client continuing a reply of the thread (a second process on the same session). */
async function foreignContinue(server: FakeLLM, previous: string, toolId: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-beta": THREADS_BETA },
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: "x" }] }],
      thread: { type: "continue", previous_message_id: previous },
    }),
  });
  await response.text();
  return response.status;
}

const lastReplyId = (server: FakeLLM) => `msg_thread_${server.requests.filter((r) => r.thread).length}`;

test("a tool loop creates a thread, then sends only the new messages, each with the beta header", async () => {
  const server = await start([call("a", "toolu_a"), call("b", "toolu_b"), answer("done")]);
  const provider = fakeAnthropicProvider(server, { serverState: true });
  const replies = await run(provider, [], "go");
  assert.deepEqual(threads(server), ["create", "continue", "continue"]);
  for (const request of server.requests) assert.match(String(request.headers["anthropic-beta"]), /message-threads/);
  const [, second, third] = server.requests;
  assert.equal(second.body.system, undefined);
  assert.equal(second.body.tools, undefined);
  assert.equal(second.body.messages.length, 1, "only the tool result");
  assert.equal(second.body.thread.previous_message_id, "msg_thread_1");
  assert.equal(third.body.thread.previous_message_id, "msg_thread_2");
  assert.equal(third.conversation.messages.length, 5, "the model read the whole conversation");
  assert.deepEqual(
    replies.map((reply) => reply.thread?.mode),
    ["create", "continue", "continue"],
  );
  assert.equal(replies[1].thread?.bytes, second.bytes, "the recorded size is what was uploaded");
  assert.equal(replies[1].thread?.messages, 1);
});

test("nothing changes without serverState: no thread, no beta header", async () => {
  const server = await start([call("a", "toolu_a"), answer("done")]);
  const replies = await run(fakeAnthropicProvider(server), [], "go");
  assert.deepEqual(threads(server), ["none", "none"]);
  assert.equal(server.requests[0].headers["anthropic-beta"], undefined);
  assert.ok(replies.every((reply) => reply.thread === undefined));
});

test("an expired thread (404) falls back once to a create with the whole conversation, losing no turn", async () => {
  let now = 1_000_000;
  const server = await start([call("a", "toolu_a"), call("b", "toolu_b"), answer("done")]);
  server.threads.clock = () => now;
  hooks.duringTool = async () => {
    now += THREAD_TTL_MS + 1;
  };
  try {
    const replies = await run(fakeAnthropicProvider(server, { serverState: true }), [], "go");
    assert.deepEqual(server.threads.refusals, ["thread_not_found", "thread_not_found"]);
    assert.deepEqual(threads(server), ["create", "continue", "create", "continue", "create"]);
    assert.deepEqual(
      replies.map((reply) => reply.thread?.refused),
      [undefined, "thread_not_found", "thread_not_found"],
    );
    // The fallback carried the whole conversation: the last request holds both tool rounds once.
    const last = server.requests.at(-1) as RecordedRequest;
    assert.equal(last.body.messages.length, 5);
    assert.equal(replies.length, 3);
  } finally {
    hooks.duringTool = async () => {};
  }
});

test("a reply another client continued first, or is continuing, is not continued again: a new thread", async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held: ScriptStep = async () => {
    await gate;
    return answer("the other client's");
  };
  // 1: create; tool; the other client continues msg_thread_1 (step 2, answered at once);
  // 3: ours is refused (already continued) and creates; tool; the other client continues msg_thread_3
  // and is held (step 4); ours is refused (in flight) and creates (5).
  const server = await start([
    call("a", "toolu_a"),
    answer("the other client's"),
    call("b", "toolu_b"),
    held,
    answer("done"),
  ]);
  const others: Array<Promise<number>> = [];
  let round = 0;
  hooks.duringTool = async () => {
    const previous = lastReplyId(server);
    if (round++ === 0) assert.equal(await foreignContinue(server, previous, "toolu_a"), 200);
    else {
      others.push(foreignContinue(server, previous, "toolu_b"));
      const count = server.requests.length;
      while (server.requests.length === count) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  try {
    const replies = await run(fakeAnthropicProvider(server, { serverState: true }), [], "go");
    assert.deepEqual(server.threads.refusals, ["thread_already_continued", "thread_continue_in_flight"]);
    assert.deepEqual(
      replies.map((reply) => [reply.thread?.mode, reply.thread?.refused]),
      [
        ["create", undefined],
        ["create", "thread_already_continued"],
        ["create", "thread_continue_in_flight"],
      ],
    );
    release();
    assert.deepEqual(await Promise.all(others), [200]);
  } finally {
    hooks.duringTool = async () => {};
    release();
  }
});

test("a new prompt continues; undo, another system prompt or tool list start a new thread", async () => {
  const server = await start([answer("one"), answer("two"), answer("three"), answer("four")]);
  const provider = fakeAnthropicProvider(server, { serverState: true });
  const messages: Message[] = [];
  await run(provider, messages, "first");
  await run(provider, messages, "second");
  const undone = messages.slice(0, 2); // the second exchange undone
  await run(provider, undone, "second, again");
  await run(provider, [...undone], "third", "another system prompt");
  assert.deepEqual(threads(server), ["create", "continue", "create", "create"]);
  assert.deepEqual(server.threads.refusals, []);
});

test("two runs from the same point (a fork, a subagent) never continue the same reply twice", async () => {
  const server = await start([answer("one"), answer("left"), answer("right")]);
  const provider = fakeAnthropicProvider(server, { serverState: true });
  const messages: Message[] = [];
  await run(provider, messages, "first");
  await Promise.all([run(provider, [...messages], "left"), run(provider, [...messages], "right")]);
  assert.deepEqual(threads(server).sort(), ["continue", "create", "create"]);
  assert.deepEqual(server.threads.refusals, []);
});

test("a continue whose reply was cut is retried as a create, never as the same continue", async () => {
  const server = await start([
    call("a", "toolu_a"),
    { cut: { text: "half of it", delayMs: 1 }, afterEvents: 3 },
    answer("done"),
  ]);
  await run(fakeAnthropicProvider(server, { serverState: true }), [], "go");
  assert.deepEqual(threads(server), ["create", "continue", "create"]);
});

test("the conversation the model reads on a continue is the one a whole request would carry", async () => {
  const script = () => [call("a", "toolu_a"), call("b", "toolu_b"), answer("done")];
  const plain = await start(script());
  await run(fakeAnthropicProvider(plain), [], "go");
  const threaded = await start(script());
  await run(fakeAnthropicProvider(threaded, { serverState: true }), [], "go");
  const seen = (request: RecordedRequest) => withoutCacheMarks(request.conversation.messages);
  assert.deepEqual(threaded.requests.map(seen), plain.requests.map(seen));
});

test("on by default at the vendor's endpoint only; a gateway asks for it; zero data retention wins", () => {
  const env = { ANTHROPIC_API_KEY: "k" };
  const settings = (config: HarnessConfig = {}, extraEnv: Record<string, string> = {}, baseUrl?: string) =>
    resolveProvider({ provider: "anthropic", model: "claude-sonnet-4-5", baseUrl }, { ...env, ...extraEnv }, config);
  assert.equal(settings().serverState, true);
  assert.equal(settings({}, {}, "https://gateway.example/anthropic").serverState, undefined);
  assert.equal(settings({}, { HARNESS_SERVER_STATE: "on" }, "https://gateway.example").serverState, true);
  assert.equal(
    settings({ providers: { anthropic: { serverState: true } } }, {}, "https://gw.example").serverState,
    true,
  );
  assert.equal(settings({ providers: { anthropic: { serverState: false } } }).serverState, undefined);
  assert.equal(settings({}, { HARNESS_SERVER_STATE: "off" }).serverState, undefined);
  const zdr = settings({ zeroDataRetention: true }, { HARNESS_SERVER_STATE: "on" });
  assert.equal(zdr.serverState, undefined);
  assert.match(zdr.notices?.join("\n") ?? "", /HARNESS_SERVER_STATE is not taken: .*zero data retention/);
  assert.equal(settings({ providers: { anthropic: { zeroDataRetention: true } } }).serverState, undefined);
  const old = resolveProvider({ provider: "anthropic", model: "claude-3-5-haiku-latest" }, env, {
    providers: { anthropic: { serverState: true } },
  });
  assert.equal(old.serverState, undefined);
  assert.match(old.notices?.join("\n") ?? "", /serverState is not taken: claude-3-5-haiku-latest does not support it/);
  assert.throws(() => settings({}, { HARNESS_SERVER_STATE: "maybe" }), /HARNESS_SERVER_STATE takes on or off/);
  const openai = resolveProvider({ provider: "openai", model: "gpt-5" }, { OPENAI_API_KEY: "k" }, {});
  assert.equal(openai.serverState, undefined);
});

test("a fingerprint refusal falls back to a create as well", async () => {
  const mismatch = {
    status: 400,
    body: { type: "error", error: { type: "thread_fingerprint_mismatch", message: "the thread's fields differ" } },
  };
  const server = await start([call("a", "toolu_a"), mismatch, answer("done")]);
  const replies = await run(fakeAnthropicProvider(server, { serverState: true }), [], "go");
  assert.deepEqual(threads(server), ["create", "continue", "create"]);
  assert.equal(replies.at(-1)?.thread?.refused, "thread_fingerprint_mismatch");
});

test("an error status that is not about the thread is no refusal: the loop's retry continues the same thread", async () => {
  const server = await start([call("a", "toolu_a"), { status: 529 }, { status: 429 }, answer("done")]);
  const replies = await run(fakeAnthropicProvider(server, { serverState: true }), [], "go");
  assert.deepEqual(threads(server), ["create", "continue", "continue", "continue"]);
  assert.equal(server.requests[3].body.thread.previous_message_id, "msg_thread_1");
  assert.equal(replies.at(-1)?.thread?.refused, undefined);
  assert.deepEqual(server.threads.refusals, []);
});
