// MCP tool schemas Gemini's Schema cannot say (a free-form object, an untyped array, at any depth,
// beside unions, $ref, const and type lists) go to Gemini's native endpoint as
// `parametersJsonSchema`; the strict persona refuses them as `parameters` with Gemini's own errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelEvent, ToolSpec } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { toDeclaration } from "../../src/providers/gemini/gemini-request.ts";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import { fakeServerPerTest } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const messy: ToolSpec = {
  name: "notes_put",
  description: "Store a note.",
  parameters: {
    type: "object",
    $defs: { tag: { type: "string", const: "x" } },
    properties: {
      meta: { type: "object", additionalProperties: true },
      deep: { type: "object", properties: { rows: { type: "array" } } },
      either: { anyOf: [{ type: "string" }, { type: "object", additionalProperties: {} }] },
      tag: { $ref: "#/$defs/tag" },
      size: { type: ["integer", "null"] },
    },
    required: ["meta"],
  },
};
const plain: ToolSpec = {
  name: "read",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

test("Gemini refuses the open shapes as parameters, at any depth, with its own errors", () => {
  const check = (parameters: unknown) =>
    PERSONAS.gemini().check({ tools: [{ functionDeclarations: [{ name: "t", parameters }] }] }, {} as never);
  const deep = { type: "object", properties: { deep: { type: "object", properties: { rows: { type: "array" } } } } };
  assert.equal(
    (check(deep)?.body as any)?.error.message,
    "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[deep].properties[rows].items: missing field.\n",
  );
  const free = { type: "object", properties: { meta: { type: "object" } } };
  assert.match(
    (check(free)?.body as any)?.error.message,
    /properties\[meta\]\.properties: should be non-empty for OBJECT type/,
  );
});

test("a messy MCP schema goes as parametersJsonSchema, a plain one as parameters, and Gemini takes both", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  fake.persona = PERSONAS.gemini();
  const provider = await createProvider({
    name: "gemini",
    api: "gemini",
    model: "gemini-2.5-flash",
    baseUrl: fake.baseUrl,
    apiKey: "k",
  });
  const events: ModelEvent[] = [];
  const request = {
    system: "",
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
    tools: [messy, plain],
  };
  for await (const event of provider.stream(request, AbortSignal.timeout(60_000))) events.push(event);
  assert.deepEqual(fake.errors, []);
  const [sentMessy, sentPlain] = fake.requests[0].body.tools[0].functionDeclarations;
  assert.equal(sentMessy.parameters, undefined);
  assert.equal(sentMessy.parametersJsonSchema.properties.meta.type, "object");
  assert.equal(sentMessy.parametersJsonSchema.properties.deep.properties.rows.type, "array");
  assert.ok(!JSON.stringify(sentMessy).includes("$ref"), "references inlined");
  assert.deepEqual(sentPlain.parameters, plain.parameters);
  assert.equal(toDeclaration(plain).parametersJsonSchema, undefined);
});
