// Gemini behind chat completions (its OpenAI-compatible endpoint, or a router in front of a Gemini
// model) takes only `parameters`, in Gemini's Schema: a free-form object goes as a string of JSON
// text and an untyped list as a list of strings, and the model's strings are decoded back before
// the tool sees them (src/providers/open-shapes.ts). The strict persona refuses the open shapes
// with that endpoint's error body.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage } from "../../src/core/messages.ts";
import type { ModelEvent, ToolSpec } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const messy: ToolSpec = {
  name: "notes_put",
  description: "Store a note.",
  parameters: {
    type: "object",
    properties: {
      meta: { type: "object", additionalProperties: true, description: "Anything." },
      deep: { type: "object", properties: { rows: { type: "array" } } },
      either: { anyOf: [{ type: "number" }, { type: "object", additionalProperties: {} }] },
      words: { type: "array", items: { type: "string" } },
    },
    required: ["meta"],
  },
};
const plain: ToolSpec = {
  name: "read",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const request = (tools: ToolSpec[]) => ({
  system: "",
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
  tools,
});

test("Gemini's OpenAI-compatible endpoint refuses open shapes below the top, in its array body", () => {
  const check = (parameters: unknown) =>
    PERSONAS["gemini-openai"]().check(
      { model: "gemini-2.5-flash", tools: [{ type: "function", function: { name: "t", parameters } }] },
      {} as never,
    );
  const refusal = check(messy.parameters);
  assert.equal(refusal?.status, 400);
  assert.deepEqual(refusal?.body, [
    {
      error: {
        code: 400,
        message:
          "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[meta].properties: should be non-empty for OBJECT type\n",
        status: "INVALID_ARGUMENT",
      },
    },
  ]);
  const list = { type: "object", properties: { deep: { type: "object", properties: { rows: { type: "array" } } } } };
  assert.match(JSON.stringify(check(list)?.body), /properties\[deep\]\.properties\[rows\]\.items: missing field/);
  assert.equal(check(plain.parameters), undefined);
  assert.equal(check({ type: "object", properties: {} }), undefined, "a tool without arguments is not checked");
});

async function oneCall(baseUrl: string, model: string, name: string, tools: ToolSpec[]): Promise<AssistantMessage> {
  const provider = await createProvider({ name, api: "openai", model, baseUrl, apiKey: "k" });
  let message: AssistantMessage | undefined;
  for await (const event of provider.stream(request(tools), AbortSignal.timeout(60_000)) as AsyncIterable<ModelEvent>)
    if (event.type === "done") message = event.message;
  assert.ok(message);
  return message;
}

test("open shapes go closed to Gemini behind chat completions; the model's strings come back decoded", async () => {
  const written = {
    meta: '{"owner":"ann","tags":["a"]}',
    deep: { rows: ['{"n":1}', "plain words", "[1,2]"] },
    either: '{"k":true}',
    words: ['{"not":"decoded"}'],
  };
  const fake = await serve([{ reply: { toolCalls: [{ id: "", name: "notes_put", arguments: written }] } }]);
  fake.persona = PERSONAS["gemini-openai"]();
  const message = await oneCall(fake.baseUrl, "gemini-2.5-flash", "google", [messy, plain]);
  assert.deepEqual(fake.errors, []);
  const [sentMessy, sentPlain] = fake.requests[0].body.tools.map((tool: any) => tool.function.parameters);
  assert.deepEqual(sentMessy.properties.meta, {
    type: "string",
    description: "Anything. (a JSON object, written as JSON text)",
  });
  assert.equal(sentMessy.properties.deep.properties.rows.items.type, "string");
  assert.equal(sentMessy.properties.either.anyOf[1].type, "string");
  assert.deepEqual(sentMessy.properties.words, { type: "array", items: { type: "string" } });
  assert.deepEqual(sentPlain, plain.parameters);
  const call = message.content.find((part) => part.type === "tool_call");
  assert.deepEqual(JSON.parse(call?.type === "tool_call" ? call.arguments : "null"), {
    meta: { owner: "ann", tags: ["a"] },
    deep: { rows: [{ n: 1 }, "plain words", [1, 2]] },
    either: { k: true },
    words: ['{"not":"decoded"}'],
  });
});

test("a Gemini model behind a router gets closed shapes too; other models keep theirs", async () => {
  const fake = await serve([{ reply: { text: "a" } }, { reply: { text: "b" } }]);
  await oneCall(fake.baseUrl, "google/gemini-3-pro-preview", "openrouter", [messy]);
  await oneCall(fake.baseUrl, "gpt-5-mini", "openai", [messy]);
  assert.equal(fake.requests[0].body.tools[0].function.parameters.properties.meta.type, "string");
  assert.equal(fake.requests[1].body.tools[0].function.parameters.properties.meta.type, "object");
});
