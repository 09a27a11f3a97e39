// Gemini's native API (generateContent) against the fake server's strict Gemini persona: where the
// request goes and how it is signed, thinking config, tools in Gemini's schema subset, signatures
// kept on the parts that carried them, usage with cached and thinking tokens, the finishes, errors
// and retries; and `harness models` on it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import type { ModelEvent, ModelRequest } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { toContents, toDeclaration } from "../../src/providers/gemini/gemini-request.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { planThinking } from "../../src/providers/thinking.ts";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

async function strict(script: Parameters<typeof serve>[0]): Promise<FakeLLM> {
  const fake = await serve(script);
  fake.persona = PERSONAS.gemini();
  return fake;
}

function settings(fake: FakeLLM, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    name: "gemini",
    api: "gemini",
    model: "gemini-3-pro-preview",
    baseUrl: `${fake.url}/v1beta`,
    apiKey: "AIza-test",
    keyEnv: "GEMINI_API_KEY",
    ...extra,
  };
}

const READ = {
  name: "read_file",
  description: "Reads a file.",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
};

async function call(fake: FakeLLM, request: Partial<ModelRequest>, extra: Partial<ProviderSettings> = {}) {
  const provider = await createProvider(settings(fake, extra));
  const events: ModelEvent[] = [];
  for await (const event of provider.stream(
    { system: "be brief", messages: [], tools: [], ...request },
    AbortSignal.timeout(60_000),
  ))
    events.push(event);
  const done = events.at(-1);
  assert.equal(done?.type, "done");
  return { events, message: (done as { message: AssistantMessage }).message };
}

const ask = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

test("the request: streamGenerateContent with alt=sse, the key in x-goog-api-key and not the URL, system, tools and thinking config", async () => {
  const fake = await strict([{ reply: { text: "hi" } }]);
  await call(fake, { messages: [ask("hello")], tools: [READ], maxTokens: 1000 }, { thinking: "low" });
  const [request] = fake.requests;
  assert.equal(request.url, "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
  assert.equal(request.headers["x-goog-api-key"], "AIza-test");
  assert.deepEqual(request.body.systemInstruction, { parts: [{ text: "be brief" }] });
  assert.deepEqual(request.body.contents, [{ role: "user", parts: [{ text: "hello" }] }]);
  const [declaration] = request.body.tools[0].functionDeclarations;
  assert.equal(declaration.name, "read_file");
  assert.equal(declaration.parameters.additionalProperties, undefined, "only Gemini's schema subset is sent");
  assert.deepEqual(request.body.generationConfig, {
    thinkingConfig: { thinkingLevel: "low", includeThoughts: true },
    maxOutputTokens: 1000,
  });
});

test("a tool with no arguments declares no parameters (Gemini refuses an OBJECT without properties)", () => {
  const declaration = toDeclaration({
    name: "todo_read",
    description: "The list.",
    parameters: { type: "object", properties: {} },
  });
  assert.deepEqual(declaration, { name: "todo_read", description: "The list." });
});

test("--thinking maps to thinkingLevel on Gemini 3 and thinkingBudget on 2.5; what a model cannot do is left out with a notice", () => {
  const plan = (model: string, thinking: ProviderSettings["thinking"]) =>
    planThinking({ api: "gemini", name: "gemini", model, baseUrl: "", thinking });
  assert.deepEqual(plan("gemini-3-pro-preview", "high").fields, {
    thinkingConfig: { thinkingLevel: "high", includeThoughts: true },
  });
  assert.deepEqual(plan("gemini-3-pro-preview", "medium").fields, {
    thinkingConfig: { thinkingLevel: "high", includeThoughts: true },
  });
  assert.deepEqual(plan("gemini-3-flash-preview", "off").fields, {
    thinkingConfig: { thinkingLevel: "minimal", includeThoughts: true },
  });
  assert.match(plan("gemini-3-pro-preview", "off").notice ?? "", /gemini-3-pro-preview always thinks/);
  assert.deepEqual(plan("gemini-2.5-flash", "medium").fields, {
    thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
  });
  assert.deepEqual(plan("gemini-2.5-flash", "off").fields, { thinkingConfig: { thinkingBudget: 0 } });
  assert.deepEqual(plan("gemini-2.5-pro", 2000).fields, {
    thinkingConfig: { thinkingBudget: 2000, includeThoughts: true },
  });
});

test("thoughts are thinking, calls are tool calls, and the reply goes back with each signature on the part that carried it", async () => {
  const fake = await strict([
    {
      reply: {
        reasoning: "look at the file",
        text: "Reading.",
        toolCalls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const first = await call(fake, { messages: [ask("read")], tools: [READ] });
  assert.deepEqual(
    first.message.content.map((part) => part.type),
    ["thinking", "text", "tool_call", "tool_call"],
  );
  assert.equal(first.message.stopReason, "tool_use");
  const calls = first.message.content.filter((part) => part.type === "tool_call");
  assert.equal(new Set(calls.map((part) => part.id)).size, 2, "each call has an id of its own to pair its result");
  const results: Message[] = calls.map((part) => ({
    role: "tool",
    toolCallId: part.id,
    toolName: part.name,
    content: "alpha",
    isError: false,
  }));
  await call(fake, { messages: [ask("read"), first.message, ...results], tools: [READ] });
  const [, model, answers] = fake.requests[1].body.contents;
  const signed = model.parts.filter((part: any) => part.thoughtSignature);
  assert.equal(signed.length, 1, "the signature came on the first call and goes back there only");
  assert.ok(signed[0].functionCall, "on the call part");
  assert.deepEqual(model.parts[0], { text: "look at the file", thought: true }, "the thought goes back as it came");
  assert.ok(
    model.parts.every((part: any) => part.text !== ""),
    "the stream's closing empty text part carried nothing and is not sent",
  );
  assert.deepEqual(
    answers.parts.map((part: any) => part.functionResponse),
    [
      { name: "read_file", response: { result: "alpha" } },
      { name: "read_file", response: { result: "alpha" } },
    ],
  );
});

test("usage: prompt tokens less the cached ones are input, thoughts count as output", async () => {
  const fake = await strict([
    {
      reply: {
        text: "ok",
        usage: { promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 10, thoughtsTokenCount: 30 },
      },
    },
  ]);
  const { message } = await call(fake, { messages: [ask("hi")] });
  assert.deepEqual(message.usage, { input: 40, output: 40, cacheRead: 60, cacheWrite: 0 });
});

test("finishes: MAX_TOKENS is a cut reply; SAFETY and RECITATION are refusals that say why", async () => {
  const fake = await strict([
    { reply: { text: "half a sen", finishReason: "MAX_TOKENS" } },
    { reply: { finishReason: "SAFETY" } },
    { reply: { finishReason: "RECITATION" } },
  ]);
  assert.equal((await call(fake, { messages: [ask("a")] })).message.stopReason, "length");
  const safety = (await call(fake, { messages: [ask("b")] })).message;
  assert.equal(safety.stopReason, "refusal");
  assert.deepEqual(safety.content, [{ type: "text", text: "(Gemini ended the reply: SAFETY)" }]);
  assert.equal((await call(fake, { messages: [ask("c")] })).message.stopReason, "refusal");
});

test("through the CLI: GEMINI_API_KEY with --provider gemini, a 429 retried, a 400 reported with Gemini's own words", async () => {
  const fake = await strict([
    {
      status: 429,
      body: {
        error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" },
      },
    },
    { reply: { text: "the answer" } },
    {
      status: 400,
      body: {
        error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" },
      },
    },
  ]);
  const env = cleanEnv({ GEMINI_API_KEY: "AIza-cli" });
  const flags = ["--provider", "gemini", "--base-url", `${fake.url}/v1beta`, "--model", "gemini-2.5-flash"];
  const ok = await runCli([...flags, "-p", "hi"], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "the answer");
  assert.equal(fake.requests.length, 2, "the 429 was retried");
  assert.equal(fake.requests[1].headers["x-goog-api-key"], "AIza-cli");
  const bad = await runCli([...flags, "-p", "again"], { env });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /API key not valid/);
});

test("no key: --provider gemini names GEMINI_API_KEY; harness models lists Gemini's models without the models/ prefix", async () => {
  const none = await runCli(["--provider", "gemini", "-p", "hi"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no API key for gemini: set GEMINI_API_KEY/);
  const fake = await serve([]);
  fake.models = ["gemini-2.5-flash", "gemini-3-pro-preview"];
  const listed = await runCli(["models", "--provider", "gemini", "--base-url", `${fake.url}/v1beta`], {
    env: cleanEnv({ GEMINI_API_KEY: "AIza-list" }),
  });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /gemini-2\.5-flash\n.*gemini-3-pro-preview/s);
  assert.doesNotMatch(listed.stdout, /models\//);
  assert.equal(fake.requests[0].headers["x-goog-api-key"], "AIza-list");
});

test("a call Gemini gave an id of its own is answered under that id; calls without one are paired by order", () => {
  const reply: AssistantMessage = {
    role: "assistant",
    content: [
      { type: "tool_call", id: "fc_gemini_1", name: "read_file", arguments: "{}" },
      { type: "tool_call", id: "call_0_local", name: "read_file", arguments: "{}" },
    ],
    stopReason: "tool_use",
    api: "gemini",
    providerData: {
      parts: [
        { functionCall: { id: "fc_gemini_1", name: "read_file", args: {} }, thoughtSignature: "s" },
        { functionCall: { name: "read_file", args: {} } },
      ],
    },
  };
  const result = (id: string): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: "read_file",
    content: "x",
    isError: false,
  });
  const [, , answers] = toContents([ask("go"), reply, result("fc_gemini_1"), result("call_0_local")]);
  assert.deepEqual(
    answers.parts.map((part) => part.functionResponse),
    [
      { id: "fc_gemini_1", name: "read_file", response: { result: "x" } },
      { name: "read_file", response: { result: "x" } },
    ],
  );
});
