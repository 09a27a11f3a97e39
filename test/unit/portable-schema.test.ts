// portableSchema keyword by keyword, and every built-in tool's schema through it. The CLI test that
// checks what goes on the wire (built-in and MCP tools, both APIs) is in test/portable-tools-cli.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { toToolSpec } from "../../src/core/tool.ts";
import { portableSchema } from "../../src/providers/portable-schema.ts";
import { codingTools } from "../../src/tools/index.ts";
import { outsidePortableSubset } from "../support/portable-subset.ts";

/** The portable form of one property. */
const property = (schema: Record<string, unknown>) =>
  portableSchema({ type: "object", properties: { x: schema } }).properties as Record<string, unknown>;

test("exclusive bounds become inclusive: integers move by one, numbers keep the value", () => {
  assert.deepEqual(property({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 }).x, {
    type: "integer",
    minimum: 1,
    maximum: 9,
  });
  assert.deepEqual(property({ type: "number", exclusiveMinimum: 0.5, exclusiveMaximum: 2 }).x, {
    type: "number",
    minimum: 0.5,
    maximum: 2,
  });
  // draft-4 booleans, and the stricter of two lower bounds
  assert.deepEqual(
    property({ type: "integer", minimum: 3, exclusiveMinimum: true, maximum: 8, exclusiveMaximum: true }).x,
    { type: "integer", minimum: 4, maximum: 7 },
  );
  assert.deepEqual(property({ type: "integer", minimum: 5, exclusiveMinimum: 0 }).x, { type: "integer", minimum: 5 });
});

test("zod's unbounded integer limits (±MAX_SAFE_INTEGER) are dropped, real ones kept", () => {
  const json = z.toJSONSchema(z.object({ offset: z.number().int().min(1), count: z.number().int() }), {
    io: "input",
  }) as Record<string, unknown>;
  assert.deepEqual(portableSchema(json).properties, {
    offset: { type: "integer", minimum: 1 },
    count: { type: "integer" },
  });
});

test("$schema, additionalProperties and keywords with no portable form are dropped; top level is an object", () => {
  const schema = portableSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "x",
    additionalProperties: false,
    properties: {
      a: { type: "string", not: { const: "b" }, examples: ["c"], readOnly: true },
      m: { type: "object", additionalProperties: { type: "string" } },
    },
    required: ["a", "ghost"],
  });
  assert.deepEqual(schema, {
    type: "object",
    properties: { a: { type: "string" }, m: { type: "object" } },
    required: ["a"],
  });
});

test("enums are strings only: a string const is an enum, other values become a note", () => {
  assert.deepEqual(property({ type: "string", enum: ["a", "b"] }).x, { type: "string", enum: ["a", "b"] });
  assert.deepEqual(property({ type: "string", const: "only" }).x, { type: "string", enum: ["only"] });
  assert.deepEqual(property({ type: "integer", enum: [1, 2], description: "Level" }).x, {
    type: "integer",
    description: "Level (one of 1, 2)",
  });
});

test("type lists: null is left out, several types become anyOf; oneOf is anyOf without null branches", () => {
  assert.deepEqual(property({ type: ["string", "null"], description: "d" }).x, { type: "string", description: "d" });
  assert.deepEqual(property({ type: ["string", "integer"], minimum: 1, description: "d" }).x, {
    anyOf: [{ type: "string" }, { type: "integer", minimum: 1 }],
    description: "d",
  });
  assert.deepEqual(
    property({ anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "null" }] }).x,
    { type: "object", properties: { a: { type: "string" } } },
  );
  assert.deepEqual(property({ oneOf: [{ type: "string" }, { type: "number" }] }).x, {
    anyOf: [{ type: "string" }, { type: "number" }],
  });
});

test("properties, required and items only where the type allows them; untyped shapes get their type", () => {
  assert.deepEqual(property({ type: "string", properties: { a: {} }, required: ["a"], items: {} }).x, {
    type: "string",
  });
  assert.deepEqual(property({ properties: { a: { type: "string" } } }).x, {
    type: "object",
    properties: { a: { type: "string" } },
  });
  assert.deepEqual(property({ items: { type: "integer", exclusiveMinimum: 0 }, minItems: 1, uniqueItems: true }).x, {
    type: "array",
    items: { type: "integer", minimum: 1 },
    minItems: 1,
    description: "unique items",
  });
  assert.deepEqual(property({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }).x, {
    type: "array",
    items: { anyOf: [{ type: "string" }, { type: "number" }] },
  });
});

test("$ref is inlined from $defs, bounded for recursive schemas; allOf is merged", () => {
  const schema = portableSchema({
    type: "object",
    $defs: {
      point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
      tree: { type: "object", properties: { child: { $ref: "#/$defs/tree" } } },
    },
    properties: {
      p: { $ref: "#/$defs/point", description: "A point" },
      t: { $ref: "#/$defs/tree" },
      both: {
        allOf: [{ properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "string" } } }],
      },
    },
  });
  const properties = schema.properties as Record<string, any>;
  assert.deepEqual(properties.p, {
    type: "object",
    properties: { x: { type: "number" } },
    required: ["x"],
    description: "A point",
  });
  assert.deepEqual(properties.both, {
    type: "object",
    properties: { b: { type: "string" }, a: { type: "string" } },
    required: ["a"],
  });
  let depth = 0;
  for (let node = properties.t; node.properties?.child; node = node.properties.child) depth++;
  assert.ok(depth >= 1 && depth <= 10, `recursion stops (depth ${depth})`);
  assert.deepEqual(outsidePortableSubset(schema), []);
});

test("formats: date-time stays; others, lengths and defaults become a note unless the description says it", () => {
  assert.deepEqual(property({ type: "string", format: "date-time" }).x, { type: "string", format: "date-time" });
  assert.deepEqual(property({ type: "string", format: "email", maxLength: 80 }).x, {
    type: "string",
    description: "format email; max length 80",
  });
  assert.deepEqual(property({ type: "integer", format: "int32" }).x, { type: "integer" });
  assert.deepEqual(property({ type: "integer", default: 30, description: "Seconds (default 120)" }).x, {
    type: "integer",
    description: "Seconds (default 120)",
  });
  assert.deepEqual(property({ type: "boolean", default: true }).x, { type: "boolean", description: "default true" });
  assert.deepEqual(property({ type: "string", pattern: "^a", title: "T" }).x, {
    type: "string",
    pattern: "^a",
    title: "T",
  });
});

test("every built-in tool's schema is portable after the conversion, and keeps its properties and required fields", () => {
  assert.ok(codingTools.length >= 7);
  for (const tool of codingTools) {
    const original = toToolSpec(tool).parameters;
    const portable = portableSchema(original);
    assert.deepEqual(outsidePortableSubset(portable, tool.name), []);
    assert.deepEqual(Object.keys(portable.properties as object), Object.keys(original.properties as object), tool.name);
    assert.deepEqual(portable.required, original.required, tool.name);
    assert.ok(
      JSON.stringify(portable).length <= JSON.stringify(original).length,
      `${tool.name}: the first request does not grow`,
    );
  }
  // The two the issue named: bash's timeout and read_file's offset.
  const bash = portableSchema(toToolSpec(codingTools.find((tool) => tool.name === "bash")!).parameters);
  assert.deepEqual((bash.properties as any).timeout, {
    description: "Seconds before it is killed (default 120, max 600)",
    type: "integer",
    minimum: 1,
    maximum: 600,
  });
  const read = portableSchema(toToolSpec(codingTools.find((tool) => tool.name === "read_file")!).parameters);
  assert.deepEqual((read.properties as any).offset, {
    description: "First line, 1-based",
    type: "integer",
    minimum: 1,
  });
});
