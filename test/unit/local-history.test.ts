// The local adapter's pure translators: neutral history to node-llama-cpp's, tool schemas to
// what its grammar builder knows, and the nulls that grammar makes a model write taken out again.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/core/messages.ts";
import { toToolSpec } from "../../src/core/tool.ts";
import { dropOmitted, toChatHistory, toGbnfSchema } from "../../src/providers/local/local-history.ts";
import { readFile } from "../../src/tools/read-file.ts";

test("tool calls travel with their results, and the reply after them continues the same model item", () => {
  const messages: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in a.txt?" },
        { type: "image", mediaType: "image/png", data: "iVBOR" },
      ],
    },
    {
      role: "assistant",
      stopReason: "tool_use",
      content: [
        { type: "thinking", text: "Read both." },
        { type: "text", text: "Reading." },
        { type: "tool_call", id: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
        { type: "tool_call", id: "c2", name: "read_file", arguments: '{"path":"b.txt"' },
      ],
    },
    { role: "tool", toolCallId: "c1", toolName: "read_file", content: "alpha", isError: false },
    { role: "tool", toolCallId: "c2", toolName: "read_file", content: "invalid JSON", isError: true },
    { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "a.txt says alpha." }] },
    { role: "user", content: [{ type: "text", text: "Thanks." }] },
  ];
  assert.deepEqual(toChatHistory({ system: "Be brief.", messages, tools: [] }), [
    { type: "system", text: "Be brief." },
    { type: "user", text: "What is in a.txt?\n[an image was attached here; this local model reads text only]" },
    {
      type: "model",
      response: [
        { type: "segment", segmentType: "thought", text: "Read both.", ended: true },
        "Reading.",
        { type: "functionCall", name: "read_file", params: { path: "a.txt" }, result: "alpha", startsNewChunk: true },
        { type: "functionCall", name: "read_file", params: '{"path":"b.txt"', result: "Error: invalid JSON" },
        "a.txt says alpha.",
      ],
    },
    { type: "user", text: "Thanks." },
    { type: "model", response: [] },
  ]);
});

test("a conversation that ends in tool results is continued in the model's own item", () => {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "Go." }] },
    {
      role: "assistant",
      stopReason: "tool_use",
      content: [{ type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"ls"}' }],
    },
    { role: "tool", toolCallId: "c1", toolName: "bash", content: "a.txt", isError: false },
  ];
  const history = toChatHistory({ system: "", messages, tools: [] });
  assert.deepEqual(history.at(-1), {
    type: "model",
    response: [
      { type: "functionCall", name: "bash", params: { command: "ls" }, result: "a.txt", startsNewChunk: true },
    ],
  });
  assert.equal(history.length, 2, "no system item for an empty system prompt, no empty model item after");
});

test("tool schemas keep what the grammar knows; optional properties become 'this or null'", () => {
  assert.deepEqual(toGbnfSchema(toToolSpec(readFile).parameters), {
    type: "object",
    properties: {
      path: { type: "string" },
      offset: {
        oneOf: [{ type: "integer", description: "First line, 1-based" }, { type: "null" }],
        description: "optional: null leaves it out",
      },
      limit: {
        oneOf: [{ type: "integer", description: "Number of lines" }, { type: "null" }],
        description: "optional: null leaves it out",
      },
    },
    required: ["path"],
  });
  assert.deepEqual(
    toGbnfSchema({
      anyOf: [
        { type: "string", format: "uri" },
        { type: "array", items: { enum: ["a", "b"] }, minItems: 1 },
      ],
    }),
    {
      oneOf: [{ type: "string" }, { type: "array", items: { enum: ["a", "b"] }, minItems: 1 }],
    },
  );
  assert.deepEqual(toGbnfSchema({ type: ["string", "null"], default: "x" }), { type: ["string", "null"] });
  assert.deepEqual(toGbnfSchema({}), { type: ["string", "number", "boolean", "null"] });
});

test("nulls written for optional properties are dropped; required ones and other values stay", () => {
  const schema = toToolSpec(readFile).parameters;
  assert.deepEqual(dropOmitted({ path: "a.txt", offset: null, limit: 20 }, schema), { path: "a.txt", limit: 20 });
  assert.deepEqual(dropOmitted({ path: null }, schema), { path: null });
  assert.deepEqual(dropOmitted("not an object", schema), "not an object");
});
