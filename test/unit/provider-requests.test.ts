// What the adapters put on the wire now that they post with fetch (src/providers/post-json.ts)
// rather than the official clients: the path under any base URL, the key in each API's header,
// the settings' headers winning whatever their case, and a JSON error body in the server's words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ModelRequest, type Provider, ProviderError } from "../../src/core/provider.ts";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-messages.ts";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat/openai-chat.ts";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses/openai-responses.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const request: ModelRequest = {
  system: "sys",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
};

async function streamAll(provider: Provider): Promise<unknown[]> {
  const events = [];
  for await (const event of provider.stream(request, new AbortController().signal)) events.push(event);
  return events;
}

const settings = (fake: FakeLLM, headers?: Record<string, string>) => ({
  name: "fake",
  model: "fake-model",
  // A pasted base URL often ends in a slash; the path must not double it.
  baseUrl: `${fake.baseUrl}/`,
  apiKey: "sk-test",
  keyEnv: "OPENAI_API_KEY",
  headers,
});

test("chat completions: POST /v1/chat/completions with the bearer key and JSON", async () => {
  const fake = await serve([{ reply: { text: "hello" } }]);
  const events = await streamAll(createOpenAIChatProvider(settings(fake)));
  assert.equal((events.at(-1) as { type: string }).type, "done");
  const [sent] = fake.requests;
  assert.equal(`${sent.method} ${sent.path}`, "POST /v1/chat/completions");
  assert.equal(sent.headers.authorization, "Bearer sk-test");
  assert.equal(sent.headers["content-type"], "application/json");
  assert.equal(sent.body.model, "fake-model");
});

test("the settings' headers win over the bearer key, whatever their case", async () => {
  const fake = await serve([{ reply: { text: "hello" } }]);
  await streamAll(createOpenAIChatProvider(settings(fake, { Authorization: "Bearer other", "X-Team": "a" })));
  assert.equal(fake.requests[0].headers.authorization, "Bearer other");
  assert.equal(fake.requests[0].headers["x-team"], "a");
});

test("Responses: POST /v1/responses with the same headers", async () => {
  const fake = await serve([{ reply: { text: "hello" } }]);
  const provider = createOpenAIResponsesProvider({ ...settings(fake, { "X-Team": "b" }), api: "responses" });
  const events = await streamAll(provider);
  assert.equal((events.at(-1) as { type: string }).type, "done");
  const [sent] = fake.requests;
  assert.equal(`${sent.method} ${sent.path}`, "POST /v1/responses");
  assert.equal(sent.headers.authorization, "Bearer sk-test");
  assert.equal(sent.headers["x-team"], "b");
});

test("a JSON error body becomes the server's message with its status and kind", async () => {
  const fake = await serve([
    { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens" } } },
  ]);
  const failure = await streamAll(createOpenAIChatProvider(settings(fake))).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(failure instanceof ProviderError);
  assert.equal(failure.kind, "context_overflow");
  assert.equal(failure.status, 400);
  assert.match(failure.message, /^400 the conversation is too long for fake-model: This model's maximum context/);
});

test("Anthropic: POST /v1/messages under a base that ends in /v1/, with x-api-key and the API version", async () => {
  const fake = await serve([{ reply: { text: "hello" } }]);
  const provider = createAnthropicProvider({
    ...settings(fake, { "X-Api-Key": "sk-other" }),
    baseUrl: `${fake.url}/v1/`,
    api: "anthropic",
  });
  const events = await streamAll(provider);
  assert.equal((events.at(-1) as { type: string }).type, "done");
  const [sent] = fake.requests;
  assert.equal(`${sent.method} ${sent.path}`, "POST /v1/messages");
  assert.equal(sent.headers["x-api-key"], "sk-other", "the settings' header wins whatever its case");
  assert.equal(sent.headers["anthropic-version"], "2023-06-01");
  assert.equal(sent.headers.authorization, undefined, "the key goes in x-api-key only");
  assert.equal(sent.body.model, "fake-model");
});
