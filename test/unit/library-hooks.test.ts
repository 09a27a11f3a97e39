// The library's typed hook points, beforeToolCall and afterToolCall, on the real loop against
// the fake server: one pair, an ordered list of them (the command hooks one entry of it), an
// after-edit formatter added as one hook; and the start event carrying the session id it was given.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { type AgentOptions, type RunOptions, runAgent } from "../../src/core/agent.ts";
import { EVENT_SCHEMA_VERSION } from "../../src/core/event-schema.ts";
import type { AgentEvent, RunResult } from "../../src/core/events.ts";
import type { ToolHook } from "../../src/core/run-tools.ts";
import { createCommandHooks } from "../../src/hooks/command-hooks.ts";
import { loadHooks } from "../../src/hooks/hook-settings.ts";
import { HookedAgent } from "../../src/hooks/hooked-agent.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { writeFile } from "../../src/tools/write-file.ts";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { fakeOpenAIProvider, ROOT, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, []);
  await server.close();
});

async function run(script: ScriptStep[], options: Partial<RunOptions>, cwd = tempDir()) {
  server = await startFakeLLM(script);
  const events: AgentEvent[] = [];
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

test("tool hooks run in order: each sees what the one before left, the first block stops the call, results gather every addition", async () => {
  const calls: string[] = [];
  const hook = (name: string): ToolHook => ({
    async beforeToolCall(call, input) {
      calls.push(`${name} before ${call.id} ${JSON.stringify(input)}`);
      if (name === "first" && call.id === "rewritten") return { input: { path: "by-first.txt", content: "first" } };
      if (name === "second" && call.id === "blocked") return { block: `${name} says no` };
    },
    async afterToolCall(call, result) {
      calls.push(`${name} after ${call.id}`);
      return { content: `${result.content}\n[${name}]` };
    },
  });
  const { cwd } = await run(
    [
      {
        reply: {
          toolCalls: [
            { id: "rewritten", name: "write_file", arguments: { path: "model.txt", content: "model" } },
            { id: "blocked", name: "bash", arguments: { command: "touch blocked.txt" } },
          ],
        },
      },
      { reply: { text: "ok" } },
    ],
    { toolHooks: [hook("first"), hook("second")] },
  );
  assert.equal(readFileSync(join(cwd, "by-first.txt"), "utf8"), "first");
  assert.equal(existsSync(join(cwd, "model.txt")), false);
  assert.equal(existsSync(join(cwd, "blocked.txt")), false);
  assert.equal(resultOf("blocked"), "The bash call was blocked by a hook: second says no");
  assert.match(resultOf("rewritten"), /^Created by-first\.txt .*\n\[first\]\n\[second\]$/);
  assert.deepEqual(
    calls.filter((line) => line.includes("rewritten")),
    [
      'first before rewritten {"path":"model.txt","content":"model"}',
      'second before rewritten {"path":"by-first.txt","content":"first"}',
      "first after rewritten",
      "second after rewritten",
    ],
  );
  assert.deepEqual(
    calls.filter((line) => line.includes("blocked")),
    ['first before blocked {"command":"touch blocked.txt"}', 'second before blocked {"command":"touch blocked.txt"}'],
    "a blocked call runs no after hook",
  );
});

test("an after-edit formatter is one hook: it formats the files a result says changed, and the model is told", async () => {
  const biome = join(ROOT, "node_modules", ".bin", "biome");
  const cwd = tempDir();
  const formatter: ToolHook = {
    async afterToolCall(_call, result) {
      const changed = result.changedFiles ?? [];
      if (changed.length === 0) return;
      execFileSync(biome, ["format", "--write", ...changed], { cwd, stdio: "ignore" });
      return { content: `${result.content}\n[formatted ${changed.length} file(s)]` };
    },
  };
  writeFileSync(join(cwd, "biome.json"), JSON.stringify({ formatter: { indentStyle: "space" } }));
  await run(
    [
      {
        reply: {
          toolCalls: [
            { id: "write", name: "write_file", arguments: { path: "a.ts", content: "const  a = {b:1}" } },
            { id: "command", name: "bash", arguments: { command: "echo 'const  c = {d:2}' > c.ts" } },
          ],
        },
      },
      { reply: { text: "ok" } },
    ],
    { toolHooks: [formatter] },
    cwd,
  );
  assert.equal(readFileSync(join(cwd, "a.ts"), "utf8"), "const a = { b: 1 };\n");
  assert.match(resultOf("write"), /^Created a\.ts .*\n\[formatted 1 file\(s\)\]$/);
  assert.equal(readFileSync(join(cwd, "c.ts"), "utf8"), "const  c = {d:2}\n", "bash lists no changed files");
  assert.doesNotMatch(resultOf("command"), /formatted/);
});

test("the command hooks are the first entry of an agent's tool hooks: a PreToolUse refusal holds before the others run", async () => {
  const cwd = tempDir();
  const settings = join(cwd, "settings.json");
  const hook = (command: string) => [{ matcher: "bash", hooks: [{ type: "command", command }] }];
  writeFileSync(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: hook("grep -q refuse-me && { echo 'the PreToolUse hook refused' >&2; exit 2; } || exit 0"),
        PostToolUse: hook(`echo '{"hookSpecificOutput":{"additionalContext":"from PostToolUse"}}'`),
      },
    }),
  );
  const warnings: string[] = [];
  const commandHooks = createCommandHooks(
    loadHooks([{ path: settings, dialect: "harness", isUser: true }], (message) => warnings.push(message)),
    {
      cwd,
      env: process.env,
      warn: (message) => warnings.push(message),
    },
  );
  const seen: string[] = [];
  const library: ToolHook = {
    async beforeToolCall(call) {
      seen.push(`before ${call.id}`);
    },
    async afterToolCall(call, result) {
      seen.push(`after ${call.id}`);
      return { content: `${result.content}\n[library hook]` };
    },
  };
  server = await startFakeLLM([
    {
      reply: {
        toolCalls: [
          { id: "refused", name: "bash", arguments: { command: "echo refuse-me" } },
          { id: "allowed", name: "bash", arguments: { command: "echo fine" } },
        ],
      },
    },
    { reply: { text: "ok" } },
  ]);
  const options: AgentOptions = {
    provider: fakeOpenAIProvider(server),
    tools: [bash],
    system: "",
    cwd,
    retry: { maxRetries: 0, baseDelayMs: 1 },
    toolHooks: [library],
  };
  const agent = new HookedAgent(options, commandHooks);
  for await (const _event of agent.prompt("go"));
  assert.deepEqual(warnings, []);
  assert.equal(resultOf("refused"), "The bash call was blocked by a hook: the PreToolUse hook refused");
  assert.match(resultOf("allowed"), /^fine\n(.*\n)?\[from PostToolUse\]\n\[library hook\]$/);
  assert.deepEqual(seen, ["before allowed", "after allowed"]);
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
