// Requests built from the model catalogue, against the strict personas: a parameter a model does
// not take is left out (with one notice), a text-only model is sent its images as a line of text,
// and Mistral's models get an assistant message between tool results and the next user message.
// Each persona refuses the raw form with the real error body (test/support/fake-llm/persona-rules-models.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import type { ModelRequest } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { forTarget, sourceOf } from "../../src/providers/replay.ts";
import { fitName } from "../../src/providers/tool-limits.ts";
import { rulesFor } from "../../src/providers/wire-rules.ts";
import { PERSONAS, type PersonaName } from "../support/fake-llm/personas.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async function strict(persona: PersonaName, replies = 1): Promise<FakeLLM> {
  const fake = await serve(Array.from({ length: replies }, () => ({ reply: { text: "ok" } })));
  fake.persona = PERSONAS[persona]();
  return fake;
}

async function call(settings: ProviderSettings, messages: Message[]) {
  const notices: string[] = [];
  const provider = await createProvider({ ...settings, onWait: (line) => notices.push(line) });
  const request: ModelRequest = { system: "", messages, tools: [] };
  for await (const _event of provider.stream(request, AbortSignal.timeout(60_000)));
  return notices;
}

const ask = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const settings = (fake: FakeLLM, over: Partial<ProviderSettings>): ProviderSettings => ({
  name: "openai",
  api: "openai",
  model: "gpt-5",
  baseUrl: fake.baseUrl,
  apiKey: "k",
  ...over,
});

test("the personas refuse what the models refuse, with the real bodies", () => {
  const codex = PERSONAS.openai().check({ model: "gpt-5-codex", reasoning: { effort: "minimal" } }, {} as never);
  assert.equal(
    (codex?.body as any)?.error.message,
    "Unsupported value: 'minimal' is not supported with the 'gpt-5-codex' model. Supported values are: 'low', 'medium', and 'high'.",
  );
  const claude = PERSONAS.anthropic().check(
    { model: "claude-3-5-sonnet-20241022", thinking: { type: "enabled", budget_tokens: 2048 }, messages: [] },
    {} as never,
  );
  assert.equal((claude?.body as any)?.error.message, "'claude-3-5-sonnet-20241022' does not support thinking.");
  const mistral = PERSONAS.mistral().check(
    { model: "mistral-small-latest", messages: [{ role: "tool", tool_call_id: "abcDEF123" }, { role: "user" }] },
    {} as never,
  );
  assert.equal((mistral?.body as any)?.code, "3230");
  const groq = PERSONAS.groq().check(
    { model: "openai/gpt-oss-120b", messages: [{ role: "user", content: [{ type: "image_url" }] }] },
    {} as never,
  );
  assert.equal((groq?.body as any)?.error.message, "message[0].content must be a string");
});

test("--thinking off on the codex models and thinking on Claude 3.5 are left out, each with one notice", async () => {
  const openai = await strict("openai", 2);
  for (const model of ["gpt-5-codex", "gpt-5.1-codex"]) {
    const notices = await call(settings(openai, { api: "responses", model, thinking: "off" }), [ask("hi")]);
    assert.equal(notices.length, 0, "the plan's notice is the session's to say (thinking.ts), not the edge's");
  }
  assert.deepEqual(openai.errors, []);
  for (const request of openai.requests) assert.equal(request.body.reasoning?.effort, undefined);
  const anthropic = await strict("anthropic");
  const claude = {
    name: "anthropic",
    api: "anthropic" as const,
    model: "claude-3-5-haiku-20241022",
    thinking: "high" as const,
  };
  await call(settings(anthropic, claude), [ask("hi")]);
  assert.deepEqual(anthropic.errors, []);
  assert.equal(anthropic.requests[0].body.thinking, undefined);
});

test("a text-only model is sent a line of text for each image, said once", async () => {
  const groq = await strict("groq");
  const image = { type: "image" as const, mediaType: "image/png", data: PNG };
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "what is it?" }, image, image] }];
  const notices = await call(settings(groq, { name: "groq", model: "openai/gpt-oss-120b" }), messages);
  assert.deepEqual(groq.errors, []);
  assert.deepEqual(notices, ["an image is left out: groq (openai/gpt-oss-120b) reads no images"]);
  const sent = JSON.stringify(groq.requests[0].body.messages);
  assert.ok(!sent.includes("image_url"));
  assert.match(sent, /\[an image is left out: groq \(openai\/gpt-oss-120b\) reads no images\]/);
});

test("Mistral's models get an assistant message between tool results and the next user message, a tool's image after it", async () => {
  const call9 = "abcDEF123";
  const turn: AssistantMessage = {
    role: "assistant",
    content: [{ type: "tool_call", id: call9, name: "screenshot", arguments: "{}" }],
    stopReason: "tool_use",
  };
  const result: Message = {
    role: "tool",
    toolCallId: call9,
    toolName: "screenshot",
    content: "saved",
    isError: false,
    images: [{ type: "image", mediaType: "image/png", data: PNG }],
  };
  // La Plateforme, and a Devstral behind a vLLM server of one's own: the rule is the model's.
  for (const over of [
    { name: "mistral", model: "mistral-small-latest" },
    { name: "vllm", model: "mistralai/Devstral-Small-2505" },
  ]) {
    const fake = await strict("mistral", 2);
    await call(settings(fake, over), [ask("look"), turn, result]);
    await call(settings(fake, over), [ask("look"), turn, { ...result, images: undefined }, ask("and now?")]);
    assert.deepEqual(fake.errors, [], over.model);
    const roles = fake.requests.map((request) => request.body.messages.map((message: any) => message.role).join(","));
    assert.deepEqual(roles, ["user,assistant,tool,assistant,user", "user,assistant,tool,assistant,user"]);
    // The tool's image after the bridge: as an image to Mistral Small, as a line to Devstral, which reads none.
    const imageTurn = JSON.stringify(fake.requests[0].body.messages.at(-1));
    assert.match(imageTurn, new RegExp(`The image from the screenshot call ${call9}:`));
    assert.match(imageTurn, over.model.includes("Devstral") ? /reads no images/ : /"image_url"/);
  }
});

test("other chat-completions models keep tool results followed directly by the user's message", async () => {
  const fake = await strict("openai");
  const turn: AssistantMessage = {
    role: "assistant",
    content: [{ type: "tool_call", id: "call_1", name: "bash", arguments: "{}" }],
    stopReason: "tool_use",
  };
  const result: Message = { role: "tool", toolCallId: "call_1", toolName: "bash", content: "x", isError: false };
  await call(settings(fake, {}), [ask("go"), turn, result, ask("next")]);
  assert.deepEqual(
    fake.requests[0].body.messages.map((message: any) => message.role),
    ["user", "assistant", "tool", "user"],
  );
});

test("tool names stay unique after cleaning: a cleaned name another tool holds gets its own suffix, mapped back", async () => {
  const fake = await strict("anthropic");
  const spec = (name: string) => ({ name, description: name, parameters: { type: "object", properties: {} } });
  const cleaned = fitName("notes.get", { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 });
  const long = "x".repeat(70);
  const tools = [spec("notes.get"), spec(cleaned), spec(`${long}a`), spec(`${long}b`)];
  const provider = await createProvider(
    settings(fake, { name: "anthropic", api: "anthropic", model: "claude-sonnet-4-5" }),
  );
  for await (const _event of provider.stream(
    { system: "", messages: [ask("hi")], tools },
    AbortSignal.timeout(60_000),
  ));
  assert.deepEqual(fake.errors, []);
  const names = fake.requests[0].body.tools.map((tool: any) => tool.name);
  assert.equal(new Set(names).size, 4);
  assert.equal(names[1], cleaned, "a name that fits is its own");
  for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
});

test("a server's own long tool-call ids go back as it minted them; to another target they are mapped", () => {
  const id = `chatcmpl-tool-${"a".repeat(32)}`; // vLLM-style, 46 characters
  const target = { api: "openai" as const, name: "vllm", model: "qwen3", baseUrl: "http://10.0.0.5:8000/v1" };
  const reply: AssistantMessage = {
    role: "assistant",
    content: [{ type: "tool_call", id, name: "bash", arguments: "{}" }],
    stopReason: "tool_use",
    source: sourceOf(target),
  };
  const result: Message = { role: "tool", toolCallId: id, toolName: "bash", content: "x", isError: false };
  const rules = rulesFor(target);
  const own = forTarget([ask("go"), reply, result], target, rules);
  assert.equal((own[1] as AssistantMessage).content[0].type === "tool_call" && (own[1] as any).content[0].id, id);
  assert.equal((own[2] as any).toolCallId, id);
  const openai = { ...target, name: "openai", baseUrl: "https://api.openai.com/v1" };
  const other = forTarget([ask("go"), reply, result], openai, rulesFor(openai));
  const mapped = (other[1] as any).content[0].id;
  assert.ok(mapped.length <= 40 && mapped !== id);
  assert.equal((other[2] as any).toolCallId, mapped);
});

test("a reply's whitespace-only text goes back to its own source as it came; Anthropic, which refuses it, gets none", async () => {
  const chatFake = await strict("kimi");
  const anthropicFake = await strict("anthropic");
  const chat = settings(chatFake, { name: "kimi", model: "kimi-k2.5" });
  const anthropic = settings(anthropicFake, { name: "anthropic", api: "anthropic", model: "claude-sonnet-4-5" });
  anthropic.baseUrl = anthropicFake.url;
  const reply: AssistantMessage = {
    role: "assistant",
    // As the avian-kimi recording of the wire corpus sends it: text "   " around a tool call.
    content: [
      { type: "text", text: "   " },
      { type: "tool_call", id: "functions.weather:0", name: "weather", arguments: '{"location": "Florence"}' },
    ],
    stopReason: "tool_use",
    api: "openai",
    source: sourceOf(chat),
  };
  const result: Message = {
    role: "tool",
    toolCallId: "functions.weather:0",
    toolName: "weather",
    content: "sunny",
    isError: false,
  };
  await call(chat, [ask("weather?"), reply, result]);
  await call(anthropic, [ask("weather?"), reply, result]);
  assert.deepEqual([...chatFake.errors, ...anthropicFake.errors], []);
  const echoed = chatFake.requests[0].body.messages.find((message: any) => message.role === "assistant");
  assert.equal(echoed.content, "   ", "byte for byte to its own source");
  assert.equal(echoed.tool_calls[0].id, "functions.weather:0");
  const moved = anthropicFake.requests[0].body.messages.find((message: any) => message.role === "assistant");
  assert.deepEqual(
    moved.content.map((block: any) => block.type),
    ["tool_use"],
    "no whitespace-only block to Anthropic",
  );
});
