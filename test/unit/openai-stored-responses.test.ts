// The Responses adapter on stored responses (stored-responses.ts), against the fake that stores
// them as OpenAI does (responses-store.ts): it continues where it can with only the new items and
// the instructions and tools every time, falls back once on every refusal, sends whole for good
// where the server keeps nothing, and never continues one response twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import type { Provider } from "../../src/core/provider.ts";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses/openai-responses.ts";
import { resolveProvider } from "../../src/wiring/resolve-provider.ts";
import { type EchoHooks, echoTool } from "../support/echo-tool.ts";
import { STORED_TTL_MS } from "../support/fake-llm/responses-store.ts";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { drain, fakeServerPerTest, tempDir } from "../support/helpers.ts";

const start = fakeServerPerTest();

/** What a tool call does in the middle of a turn (a race from elsewhere); nothing by default. */
const hooks: EchoHooks = { duringTool: async () => {} };
const echo = echoTool(hooks);

const call = (text: string, id: string): ScriptStep => ({
  reply: { reasoning: `think ${text}`, toolCalls: [{ id, name: "echo", arguments: { text } }] },
});
const answer = (text: string): ScriptStep => ({ reply: { text } });

function provider(server: FakeLLM, serverState = true, model = "gpt-5.1-codex"): Provider {
  return createOpenAIResponsesProvider({
    name: "openai",
    api: "responses",
    model,
    baseUrl: server.baseUrl,
    apiKey: "test-key",
    keyEnv: "OPENAI_API_KEY",
    ...(serverState ? { serverState } : {}),
  });
}

async function run(provider: Provider, messages: Message[], prompt: string, system = "test system") {
  const { result } = await drain(
    runAgent({
      provider,
      tools: [echo],
      system,
      cwd: tempDir(),
      messages,
      prompt,
      retry: { maxRetries: 2, baseDelayMs: 5 },
    }),
  );
  assert.equal(result.reason, "stop", result.error);
  return messages.filter((message): message is AssistantMessage => message.role === "assistant");
}

const modes = (server: FakeLLM) =>
  server.requests.map((request) =>
    request.body.previous_response_id ? "continue" : request.body.store ? "create" : "stateless",
  );
/** What the model read, `store` aside (a stored request says true, a stateless one false). */
const seen = (request: RecordedRequest) => {
  const { store: _store, ...rest } = request.conversation;
  return rest;
};
const script = () => [call("a", "call_a"), call("b", "call_b"), answer("done")];

test("a tool loop stores, then sends only the new items, with instructions and tools every time", async () => {
  const plain = await start(script());
  await run(provider(plain, false), [], "go");
  const stored = await start(script());
  const replies = await run(provider(stored), [], "go");
  assert.deepEqual(modes(plain), ["stateless", "stateless", "stateless"]);
  assert.deepEqual(modes(stored), ["create", "continue", "continue"]);
  const [, second, third] = stored.requests;
  assert.equal(second.body.previous_response_id, "resp_stored_1");
  assert.deepEqual(
    second.body.input.map((item: any) => item.type),
    ["function_call_output"],
    "only the tool's output is new",
  );
  for (const request of [second, third]) {
    assert.equal(request.body.instructions, "test system", "instructions are not carried over");
    assert.equal(request.body.tools?.[0]?.name, "echo", "nor are tools");
  }
  assert.deepEqual(stored.requests.map(seen), plain.requests.map(seen), "the model read the same conversation");
  assert.deepEqual(
    replies.map((reply) => reply.thread?.mode),
    ["create", "continue", "continue"],
  );
  assert.equal(replies[1].thread?.bytes, second.bytes);
  assert.deepEqual(stored.errors, []);
});

test("an expired or unknown response falls back once to a whole request that stores again", async () => {
  let now = 1_000_000;
  const server = await start([call("a", "call_a"), call("b", "call_b"), answer("done")]);
  server.stored.clock = () => now;
  let toolCalls = 0;
  hooks.duringTool = async () => {
    toolCalls++;
    if (toolCalls === 1) now += STORED_TTL_MS + 1; // the first response expires
    if (toolCalls === 2) server.stored.forget("resp_stored_2"); // the second is unknown
  };
  let messages: Message[] = [];
  try {
    await run(provider(server), (messages = []), "go");
  } finally {
    hooks.duringTool = async () => {};
  }
  assert.deepEqual(modes(server), ["create", "continue", "create", "continue", "create"]);
  assert.deepEqual(server.stored.refusals, ["previous_response_not_found", "previous_response_not_found"]);
  assert.equal(server.requests[1].body.previous_response_id, "resp_stored_1");
  const replies = messages.filter((message): message is AssistantMessage => message.role === "assistant");
  assert.deepEqual(
    replies.map((reply) => [reply.thread?.mode, reply.thread?.refused]),
    [
      ["create", undefined],
      ["create", "previous_response_not_found"],
      ["create", "previous_response_not_found"],
    ],
  );
  assert.equal(messages.length, 6, "no turn lost or repeated: prompt, 2 calls with their outputs, answer");
  assert.deepEqual(server.errors, []);
});

test("a backend that refuses store: true gets stateless requests from then on", async () => {
  const server = await start([call("a", "call_a"), answer("done")]);
  server.stored.refusesStore = true;
  const replies = await run(provider(server), [], "go");
  assert.deepEqual(modes(server), ["create", "stateless", "stateless"]);
  assert.equal(server.requests[1].body.store, false);
  assert.deepEqual(
    replies.map((reply) => [reply.thread?.mode, reply.thread?.refused]),
    [
      ["whole", "store_refused"],
      ["whole", "store_refused"],
    ],
  );
});

test("an account that stores nothing (zero data retention) is asked three times, then no more", async () => {
  const steps = ["a", "b", "c", "d"].map((text) => call(text, `call_${text}`));
  const server = await start([...steps, answer("done")]);
  server.stored.zeroDataRetention = true;
  const replies = await run(provider(server), [], "go");
  assert.deepEqual(modes(server), [
    "create",
    "continue",
    "create",
    "continue",
    "create",
    "continue",
    "stateless",
    "stateless",
  ]);
  assert.equal(replies.length, 5, "every turn answered once");
  assert.match(replies.at(-1)?.thread?.refused ?? "", /3 times in a row: the server keeps nothing/);
});

test("a new prompt continues; undo, another model or tool list start afresh; two forks never continue one response twice", async () => {
  const server = await start([answer("one"), answer("two"), answer("three"), answer("four"), answer("l"), answer("r")]);
  const stateful = provider(server);
  const messages: Message[] = [];
  await run(stateful, messages, "first");
  await run(stateful, messages, "second");
  const undone = messages.slice(0, 2);
  await run(stateful, undone, "second, again");
  await run(provider(server, true, "gpt-5.1"), [...undone], "on another model");
  assert.deepEqual(modes(server), ["create", "continue", "create", "create"]);
  await Promise.all([run(stateful, [...messages], "left"), run(stateful, [...messages], "right")]);
  assert.deepEqual(modes(server).slice(4).sort(), ["continue", "create"]);
  assert.deepEqual(server.stored.refusals, []);
});

test("on by default at api.openai.com on the Responses API; not on chat completions, a gateway, or zero data retention", () => {
  const env = { OPENAI_API_KEY: "k" };
  const responses = (config = {}, extraEnv = {}, baseUrl?: string) =>
    resolveProvider(
      { provider: "openai", api: "responses", model: "gpt-5.1-codex", baseUrl },
      { ...env, ...extraEnv },
      config,
    );
  assert.equal(responses().serverState, true);
  assert.equal(responses({}, {}, "https://gateway.example/v1").serverState, undefined);
  assert.equal(responses({}, { HARNESS_SERVER_STATE: "on" }, "https://gateway.example/v1").serverState, true);
  assert.equal(responses({ zeroDataRetention: true }).serverState, undefined);
  assert.equal(resolveProvider({ provider: "openai", model: "gpt-5.1-codex" }, env, {}).serverState, undefined);
  const oss = resolveProvider(
    { provider: "openai", api: "responses", model: "gpt-oss-120b" },
    { ...env, HARNESS_SERVER_STATE: "on" },
    {},
  );
  assert.equal(oss.serverState, undefined);
  assert.match(oss.notices?.join("\n") ?? "", /gpt-oss-120b does not support it on responses/);
});
