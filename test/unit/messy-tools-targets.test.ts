// MCP tools as real servers write them, sent to every provider preset and compatible server on its
// strict fake (fake-llm/personas.ts), in-process through the provider the CLI builds from the same
// flags: schemas with free-form objects, untyped lists, unions, $ref, const and type lists at every
// depth, and names that collide once cleaned (`notes.get` beside `notes_get`) or run past 64
// characters. No service may refuse the request, and the call comes back under the tool's own name.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ModelEvent, ToolSpec } from "../../src/core/provider.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { loadConfigFile } from "../../src/wiring/config-file.ts";
import type { ProviderChoice } from "../../src/wiring/defaults.ts";
import { resolveProvider } from "../../src/wiring/resolve-provider.ts";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { TARGETS, type Target } from "../support/provider-targets.ts";

const serve = fakeServerPerTest();

const messy = (name: string): ToolSpec => ({
  name,
  description: "An MCP tool with a schema as servers write it.",
  parameters: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    $defs: { mode: { type: "string", const: "fast" } },
    properties: {
      meta: { type: "object", additionalProperties: true },
      rows: { type: "array" },
      nested: { type: "object", properties: { ops: { type: "array", items: {} }, any: {} } },
      either: { anyOf: [{ type: "string" }, { type: "object", additionalProperties: {} }, { type: "null" }] },
      mode: { $ref: "#/$defs/mode" },
      size: { type: ["integer", "null"], exclusiveMinimum: 0 },
    },
    required: ["meta"],
    additionalProperties: false,
  },
});
const TOOLS = [
  messy("notes.get"),
  messy("notes_get"),
  messy(`mcp__${"x".repeat(70)}__a`),
  messy(`mcp__${"x".repeat(70)}__b`),
];

/** The settings the CLI builds from the target's flags and config.json providers. */
function settingsFor(target: Target, fake: FakeLLM) {
  const flags = target.flags(fake);
  const flag = (name: string) => {
    const at = flags.indexOf(name);
    return at < 0 ? undefined : flags[at + 1];
  };
  const choice: ProviderChoice = { provider: flag("--provider"), model: flag("--model"), baseUrl: flag("--base-url") };
  if (flag("--api")) choice.api = flag("--api") as ProviderChoice["api"];
  const env = { HARNESS_API_KEY: "test-key", GEMINI_API_KEY: "test-key", HARNESS_HOME: tempDir() };
  // config.json's providers, read as the CLI reads them (`api: "chat"` and all).
  if (target.providers)
    writeFileSync(join(env.HARNESS_HOME, "config.json"), JSON.stringify({ providers: target.providers(fake) }));
  return resolveProvider(choice, env, loadConfigFile(env));
}

for (const [key, target] of Object.entries(TARGETS)) {
  test(`${target.label}: messy MCP schemas and colliding names are sent in a form the service takes`, async () => {
    const fake = await serve([
      { reply: { toolCalls: [{ id: target.id(1), name: "notes_get", arguments: { meta: "{}" } }] } },
    ]);
    fake.persona = PERSONAS[target.persona]();
    const provider = await createProvider(settingsFor(target, fake));
    const request = {
      system: "",
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
      tools: TOOLS,
    };
    let done: ModelEvent | undefined;
    for await (const event of provider.stream(request, AbortSignal.timeout(60_000)))
      if (event.type === "done") done = event;
    assert.deepEqual(fake.errors, [], `${key}: refused`);
    const body = fake.requests[0].body;
    const names = (body.tools ?? []).flatMap((tool: any) =>
      tool.functionDeclarations
        ? tool.functionDeclarations.map((d: any) => d.name)
        : [tool.name ?? tool.function?.name],
    );
    assert.equal(new Set(names).size, TOOLS.length, `${key}: ${TOOLS.length} tools, names unique after cleaning`);
    assert.ok(!JSON.stringify(body.tools).includes("$ref"), `${key}: references inlined`);
    const call = done?.type === "done" ? done.message.content.find((part) => part.type === "tool_call") : undefined;
    assert.ok(
      call?.type === "tool_call" && TOOLS.some((tool) => tool.name === call.name),
      `${key}: ${call?.type === "tool_call" ? call.name : "no call"}`,
    );
  });
}
