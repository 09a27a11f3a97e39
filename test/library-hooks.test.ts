// The library's typed hook points, beforeToolCall and afterToolCall, on the real loop against
// the fake server; and the start event carrying the session id it was given.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { runAgent, type RunOptions } from "../src/core/agent.ts";
import type { AgentEvent, RunResult } from "../src/core/events.ts";
import { EVENT_SCHEMA_VERSION } from "../src/core/event-schema.ts";
import { bash } from "../src/tools/bash.ts";
import { writeFile } from "../src/tools/write-file.ts";
import { startFakeLLM, type FakeLLM, type ScriptStep } from "./fake-llm/server.ts";
import { fakeOpenAIProvider, tempDir } from "./helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, []);
  await server.close();
});

async function run(script: ScriptStep[], options: Partial<RunOptions>) {
  server = await startFakeLLM(script);
  const events: AgentEvent[] = [];
  const cwd = tempDir();
  const generator = runAgent({
    provider: fakeOpenAIProvider(server),
    tools: [bash, writeFile],
    system: "",
    cwd,
    messages: [],
    prompt: "go",
    retry: { maxRetries: 0, baseDelayMs: 1 },
    ...options,
  });
  let result: RunResult;
  for (let step = await generator.next(); ; step = await generator.next()) {
    if (step.done) {
      result = step.value;
      break;
    }
    events.push(step.value);
  }
  return { events, result, cwd };
}

const resultOf = (id: string) =>
  server.requests[1].body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === id)?.content as string;

test("beforeToolCall blocks, rewrites (validated again) or fails closed; afterToolCall replaces the content", async () => {
  const seen: Array<[string, unknown]> = [];
  const { events, result, cwd } = await run(
    [
      {
        reply: {
          toolCalls: [
            { id: "blocked", name: "bash", arguments: { command: "touch blocked.txt" } },
            { id: "rewritten", name: "write_file", arguments: { path: "a.txt", content: "model" } },
            { id: "invalid", name: "write_file", arguments: { path: "b.txt", content: "model" } },
            { id: "throws", name: "bash", arguments: { command: "touch thrown.txt" } },
            { id: "after", name: "bash", arguments: { command: "echo secret-value" } },
          ],
        },
      },
      { reply: { text: "ok" } },
    ],
    {
      async beforeToolCall(call, input) {
        seen.push([call.id, input]);
        if (call.id === "blocked") return { block: "not today" };
        if (call.id === "rewritten") return { input: { path: "c.txt", content: "hook" } };
        if (call.id === "invalid") return { input: { path: 7 } };
        if (call.id === "throws") throw new Error("checker crashed");
      },
      async afterToolCall(call, output) {
        if (call.id === "after") return { content: output.content.replace("secret-value", "[redacted]") };
      },
    },
  );
  assert.equal(result.reason, "stop");
  assert.deepEqual(
    new Map(seen),
    new Map<string, unknown>([
      ["blocked", { command: "touch blocked.txt" }],
      ["rewritten", { path: "a.txt", content: "model" }],
      ["invalid", { path: "b.txt", content: "model" }],
      ["throws", { command: "touch thrown.txt" }],
      ["after", { command: "echo secret-value" }],
    ]),
  );
  assert.equal(resultOf("blocked"), "The bash call was blocked by a hook: not today");
  assert.equal(existsSync(join(cwd, "blocked.txt")), false);
  assert.equal(readFileSync(join(cwd, "c.txt"), "utf8"), "hook");
  assert.equal(existsSync(join(cwd, "a.txt")), false);
  assert.match(resultOf("invalid"), /^Error: a hook rewrote the write_file arguments into ones its schema rejects:/);
  assert.equal(existsSync(join(cwd, "b.txt")), false);
  assert.match(resultOf("throws"), /^Error: the bash call was not run: a beforeToolCall hook failed: checker crashed$/);
  assert.equal(existsSync(join(cwd, "thrown.txt")), false);
  assert.match(resultOf("after"), /^\[redacted\]\n/);
  const ends = events.filter((e): e is Extract<AgentEvent, { type: "tool_end" }> => e.type === "tool_end");
  assert.match(ends.find((e) => e.id === "after")!.content, /^\[redacted\]/, "the event shows what the model got");
  const starts = events.filter((e): e is Extract<AgentEvent, { type: "tool_start" }> => e.type === "tool_start");
  assert.deepEqual(starts.map((e) => e.id).sort(), ["after", "rewritten"], "blocked and rejected calls never start");
  assert.deepEqual(JSON.parse(starts.find((e) => e.id === "rewritten")!.arguments), { path: "c.txt", content: "hook" });
});

test("the start event carries the schema version, model and the session id it was given", async () => {
  const { events } = await run([{ reply: { text: "hi" } }], { sessionId: "m4x7k2qa-3f9z" });
  assert.deepEqual(events[0], {
    type: "start",
    schemaVersion: EVENT_SCHEMA_VERSION,
    provider: "fake",
    model: "fake-model",
    sessionId: "m4x7k2qa-3f9z",
  });
});
