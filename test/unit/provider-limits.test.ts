// Limits of each API met before the request leaves (providers/edge.ts, tool-limits.ts,
// wire-rules.ts), against the strict personas: no more tools than OpenAI lists, tool names the
// API accepts (and the model's calls given their own names back), images over Anthropic's size
// left out; each with one line saying so. And the conversion rules themselves (replay.ts), with
// replies recorded before replies carried their source.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import type { ModelEvent, ModelRequest, ToolSpec } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { forTarget, mapId } from "../../src/providers/replay.ts";
import { rulesFor } from "../../src/providers/wire-rules.ts";
import { PERSONAS, type PersonaName } from "../support/fake-llm/personas.ts";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();

async function strict(persona: PersonaName, script: ScriptStep[]): Promise<FakeLLM> {
  const fake = await serve(script);
  fake.persona = PERSONAS[persona]();
  return fake;
}

const tool = (name: string): ToolSpec => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: "object", properties: { x: { type: "string" } } },
});

async function call(settings: ProviderSettings, request: Partial<ModelRequest>) {
  const notices: string[] = [];
  const provider = await createProvider({ ...settings, onWait: (line) => notices.push(line) });
  const events: ModelEvent[] = [];
  const full = { system: "", messages: [ask("go")], tools: [], ...request };
  for await (const event of provider.stream(full, AbortSignal.timeout(60_000))) events.push(event);
  return { notices, events, message: (events.at(-1) as { message: AssistantMessage }).message };
}

const ask = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

const openai = (fake: FakeLLM): ProviderSettings => ({
  name: "openai",
  api: "openai",
  model: "gpt-5-mini",
  baseUrl: fake.baseUrl,
  apiKey: "k",
});

test("past OpenAI's 128 tools the first 128 are offered (harness's own first) and one line names the rest", async () => {
  const fake = await strict("openai", [{ reply: { text: "ok" } }]);
  const tools = Array.from({ length: 131 }, (_, i) => tool(i < 5 ? `own_${i}` : `mcp__srv__t${i}`));
  const { notices } = await call(openai(fake), { tools });
  const sent = fake.requests[0].body.tools.map((entry: any) => entry.function.name);
  assert.equal(sent.length, 128);
  assert.deepEqual(sent.slice(0, 5), ["own_0", "own_1", "own_2", "own_3", "own_4"]);
  assert.deepEqual(notices, [
    "openai (gpt-5-mini) takes at most 128 tools; 3 left out of the request: mcp__srv__t128, mcp__srv__t129, mcp__srv__t130 (disable an MCP server's tools to choose others)",
  ]);
});

test("a tool name the API refuses is sent under one it takes, and the model's call comes back under the tool's own", async () => {
  const fake = await strict("openai", [
    (request) => ({ reply: { toolCalls: [{ name: request.body.tools[0].function.name, arguments: { x: "1" } }] } }),
    { reply: { text: "done" } },
  ]);
  const own = "mcp__docs.site__search:v2";
  const first = await call(openai(fake), { tools: [tool(own)] });
  const wire = fake.requests[0].body.tools[0].function.name;
  assert.match(wire, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.equal(first.notices.length, 1);
  assert.match(first.notices[0], /refuses a tool name as written; sent as .*\(mcp__docs\.site__search:v2\)/);
  const [callPart] = first.message.content.filter((part) => part.type === "tool_call");
  assert.equal(callPart.name, own, "the loop sees the tool's own name");
  const result: Message = { role: "tool", toolCallId: callPart.id, toolName: own, content: "r", isError: false };
  await call(openai(fake), { tools: [tool(own)], messages: [ask("go"), first.message, result] });
  const history = fake.requests[1].body.messages;
  assert.equal(history[1].tool_calls[0].function.name, wire, "the history names it as the request did");
});

test("an image over Anthropic's 5 MB is left out with a line saying so; the request still goes", async () => {
  const fake = await strict("anthropic", [{ reply: { text: "ok" } }]);
  const big = Buffer.alloc(6 * 1024 * 1024, 1).toString("base64");
  const settings: ProviderSettings = {
    name: "anthropic",
    api: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: fake.url,
    apiKey: "k",
  };
  const { notices } = await call(settings, {
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", mediaType: "image/png", data: big },
        ],
      },
    ],
  });
  assert.deepEqual(notices, [
    "an image of 6.0 MB is left out: anthropic (claude-sonnet-4-5) takes at most 5.0 MB per image",
  ]);
  const sent = fake.requests[0].body.messages[0].content;
  assert.equal(sent.length, 2);
  assert.ok(sent.every((block: any) => block.type === "text"));
  assert.match(sent[1].text, /left out/);
});

test("ids are mapped to each target's rule, alike in a call and its result, and left alone when they fit", () => {
  const mistral = rulesFor({ api: "openai", name: "mistral", baseUrl: "https://api.mistral.ai/v1" }).toolCallId;
  const anthropic = rulesFor({ api: "anthropic", name: "anthropic", baseUrl: "https://api.anthropic.com" }).toolCallId;
  const openai = rulesFor({ api: "openai", name: "openai", baseUrl: "https://api.openai.com/v1" }).toolCallId;
  assert.match(mapId("functions.bash:0", mistral), /^[a-zA-Z0-9]{9}$/);
  assert.equal(mapId("functions.bash:0", mistral), mapId("functions.bash:0", mistral));
  assert.notEqual(mapId("functions.bash:0", mistral), mapId("functions.bash:1", mistral));
  assert.match(mapId("functions.bash:0", anthropic), /^functions_bash_0_[a-zA-Z0-9]{12}$/);
  assert.equal(mapId("toolu_01ABC", anthropic), "toolu_01ABC");
  assert.ok(mapId(`call_${"x".repeat(50)}`, openai).length <= 40);
  assert.match(mapId("", anthropic), /^call_[a-zA-Z0-9]{12}$/, "an empty id gets one");
});

const signed: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "thinking", text: "hm", signature: "sig" },
    { type: "text", text: "  \n" },
    { type: "tool_call", id: "functions.read:0", name: "read", arguments: "{}" },
  ],
  stopReason: "tool_use",
  api: "anthropic",
  model: "claude-sonnet-4-5-20250929",
};
const result: Message = {
  role: "tool",
  toolCallId: "functions.read:0",
  toolName: "read",
  content: "x",
  isError: false,
};

test("a reply recorded before replies carried their source keeps its signature on its own API, and loses it elsewhere", () => {
  const anthropic = {
    api: "anthropic" as const,
    name: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: "https://api.anthropic.com",
  };
  const rules = rulesFor(anthropic);
  const [, kept, answer] = forTarget([ask("go"), signed, result], anthropic, rules) as [
    Message,
    AssistantMessage,
    Message,
  ];
  assert.deepEqual(kept.content[0], { type: "thinking", text: "hm", signature: "sig" });
  // Its own reply keeps its blank text here; the Anthropic adapter leaves that block out (model-requests.test.ts).
  assert.equal(kept.content.length, 3, "the blank text stays with its own source");
  const id = (kept.content[2] as { id: string }).id;
  assert.match(id, /^[a-zA-Z0-9_-]+$/);
  assert.equal((answer as { toolCallId: string }).toolCallId, id, "the result names the call's new id");

  const chat = {
    api: "openai" as const,
    name: "groq",
    model: "openai/gpt-oss-120b",
    baseUrl: "https://api.groq.com/openai/v1",
  };
  const [, moved] = forTarget([ask("go"), { ...signed, providerData: { x: 1 } }, result], chat, rulesFor(chat)) as [
    Message,
    AssistantMessage,
  ];
  assert.deepEqual(
    moved.content.map((part) => part.type),
    ["tool_call"],
    "another API's thinking is dropped",
  );
  assert.equal(moved.providerData, undefined, "and its wire fields");
});

test("a reply with its source goes back whole only to that provider, model and endpoint", () => {
  const source = { api: "anthropic", provider: "anthropic", model: "claude-sonnet-4-5", host: "api.anthropic.com" };
  const tagged = { ...signed, source };
  const same = {
    api: "anthropic" as const,
    name: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: "https://api.anthropic.com",
  };
  const thinkingOf = (target: typeof same) =>
    (forTarget([ask("go"), tagged, result], target, rulesFor(target))[1] as AssistantMessage).content.filter(
      (part) => part.type === "thinking",
    ).length;
  assert.equal(thinkingOf(same), 1);
  assert.equal(thinkingOf({ ...same, model: "claude-opus-4-1" }), 0, "another model");
  assert.equal(
    thinkingOf({ ...same, baseUrl: "https://api.minimax.io/anthropic" }),
    0,
    "another endpoint of the same API",
  );
  assert.equal(thinkingOf({ ...same, name: "moonshot" }), 0, "another provider");
});
