// The headless event stream as a script sees it: every `--output stream-json` line validated
// against the documented JSON Schema (docs/events.schema.json), which must be exactly what the
// core's zod schema generates; `--input stream-json` for multi-turn runs.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { agentEventSchema, EVENT_SCHEMA_VERSION } from "../../src/core/event-schema.ts";
import { fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";

const SCHEMA_PATH = join(ROOT, "docs", "events.schema.json");

const serve = fakeServerPerTest();

/** The JSON Schema the zod schema generates, as docs/events.schema.json holds it. */
function generatedSchema(): Record<string, unknown> {
  return {
    title: `harness agent event (schemaVersion ${EVENT_SCHEMA_VERSION})`,
    ...z.toJSONSchema(agentEventSchema, { target: "draft-2020-12" }),
  };
}

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, "utf8")));
}

test("docs/events.schema.json is the schema the core declares (regenerate: node --import tsx scripts/write-event-schema.ts)", () => {
  assert.ok(existsSync(SCHEMA_PATH), "docs/events.schema.json is missing");
  assert.deepEqual(JSON.parse(readFileSync(SCHEMA_PATH, "utf8")), generatedSchema());
  const doc = readFileSync(join(ROOT, "docs", "events.md"), "utf8");
  for (const option of agentEventSchema.options)
    assert.match(
      doc,
      new RegExp(`\`${option.shape.type.value}\``),
      `docs/events.md documents ${option.shape.type.value}`,
    );
});

test("stream-json: every line is a valid event; start, tools, retry, usage and done carry what scripts need", async () => {
  const fake = await serve([
    { status: 503 },
    {
      reply: {
        text: "Looking.",
        toolCalls: [
          { id: "call_1", name: "bash", arguments: { command: "echo out; exit 3" } },
          { id: "call_2", name: "nope", arguments: {} },
        ],
      },
    },
    { reply: { text: "Done: exit 3." } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "--output", "stream-json", "-p", "run it"], {
    cwd: tempDir(),
  });
  assert.equal(result.code, 0, result.stderr);
  const validate = validator();
  const events = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  for (const event of events)
    assert.ok(validate(event), `${JSON.stringify(event)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);

  assert.deepEqual(events[0], {
    type: "start",
    schemaVersion: EVENT_SCHEMA_VERSION,
    provider: "openai",
    model: "fake-model",
    sessionId: events[0].sessionId,
  });
  assert.match(events[0].sessionId, /^[0-9a-z]{8,}-[0-9a-z]{4}$/, "the run is recorded as a session and says which");
  const retry = events.find((e) => e.type === "retry");
  assert.equal(retry.attempt, 1);
  assert.match(retry.error, /503|server/i);
  const start = events.find((e) => e.type === "tool_start");
  assert.deepEqual(
    { ...start, summary: undefined },
    {
      type: "tool_start",
      id: "call_1",
      name: "bash",
      arguments: JSON.stringify({ command: "echo out; exit 3" }),
      summary: undefined,
    },
  );
  const ends = events.filter((e) => e.type === "tool_end");
  assert.deepEqual(
    new Map(ends.map((e) => [e.id, e.isError])),
    new Map([
      ["call_1", true],
      ["call_2", true],
    ]),
    "a failed command and an unknown tool both report isError",
  );
  assert.match(ends.find((e) => e.id === "call_1").content, /out[\s\S]*exit code: 3/);
  assert.deepEqual(events.filter((e) => e.type === "usage").at(-1).total, {
    input: 20,
    output: 10,
    cacheRead: 0,
    cacheWrite: 0,
  });
  const done = events.at(-1);
  assert.deepEqual(
    { ...done, cost: undefined },
    {
      type: "done",
      reason: "stop",
      answer: "Done: exit 3.",
      turns: 2,
      usage: { input: 20, output: 10, cacheRead: 0, cacheWrite: 0 },
      sessionId: events[0].sessionId,
      cost: undefined,
    },
  );
});

test("stream-json: a failed run ends with a done event carrying the error, and exit 1", async () => {
  const fake = await serve([{ status: 400, body: { error: { message: "bad things" } } }]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "hi"]);
  assert.equal(result.code, 1);
  const events = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const validate = validator();
  for (const event of events)
    assert.ok(validate(event), `${JSON.stringify(event)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  assert.equal(events.at(-1).type, "done");
  assert.equal(events.at(-1).reason, "error");
  assert.match(events.at(-1).error, /bad things/);
});

test("--input stream-json: each line is one prompt run to completion in the same conversation; EOF ends", async () => {
  const fake = await serve([{ reply: { text: "first answer" } }, { reply: { text: "second answer" } }]);
  const input = [
    JSON.stringify({ type: "user", text: "first question" }),
    "",
    JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "second question" }] } }),
  ].join("\n");
  const result = await runCli([...fakeFlags(fake), "--input", "stream-json", "--output", "stream-json"], {
    input: `${input}\n`,
  });
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const validate = validator();
  for (const event of events)
    assert.ok(validate(event), `${JSON.stringify(event)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  assert.deepEqual(
    events.filter((e) => e.type === "done").map((e) => e.answer),
    ["first answer", "second answer"],
  );
  const starts = events.filter((e) => e.type === "start");
  assert.equal(starts.length, 2);
  assert.equal(starts[0].sessionId, starts[1].sessionId, "one conversation, one session");
  assert.deepEqual(
    fake.requests[1].body.messages.slice(1).map((m: { role: string; content: string }) => [m.role, m.content]),
    [
      ["user", "first question"],
      ["assistant", "first answer"],
      ["user", "second question"],
    ],
  );
});

test("--input stream-json: a line that is not a user message stops with exit 2; the flag needs stream-json output", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  const result = await runCli([...fakeFlags(fake), "--input", "stream-json", "--output", "stream-json"], {
    input: `${JSON.stringify({ type: "user", text: "hi" })}\nnot json\n`,
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /stdin line 2 is not a user message/);
  assert.equal(
    result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
      .at(-1).answer,
    "ok",
  );
  const usage = await runCli([...fakeFlags(fake), "--input", "stream-json"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /needs --output stream-json/);
});
