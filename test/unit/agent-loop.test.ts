// The loop and the OpenAI-compatible provider together, against the scripted fake server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { type RunOptions, runAgent } from "../../src/core/agent.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { Message } from "../../src/core/messages.ts";
import { defineTool, type RunEnding } from "../../src/core/tool.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { drain, fakeOpenAIProvider, fakeServerPerTest, tempDir } from "../support/helpers.ts";

// Closed after each test even when it failed, then checked for protocol errors.
const serve = fakeServerPerTest();
let server: FakeLLM;

const FAST_RETRY = { maxRetries: 3, baseDelayMs: 5 };

async function run(script: ScriptStep[], options: Partial<RunOptions> = {}) {
  server = await serve(script);
  const messages: Message[] = options.messages ?? [];
  const { events, result } = await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [bash],
      system: "test system",
      cwd: tempDir(),
      messages,
      prompt: "do it",
      retry: FAST_RETRY,
      ...options,
    }),
  );
  return { result, events, messages };
}

const toolResults = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: "tool_end" }> => e.type === "tool_end");

test("a plain answer ends the run after one call", async () => {
  const { result, messages } = await run([{ reply: { text: "Hello there." } }]);
  assert.equal(result.reason, "stop");
  assert.equal(result.answer, "Hello there.");
  assert.equal(result.turns, 1);
  assert.deepEqual(result.usage, { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 });
  assert.equal(messages.length, 2);
  const body = server.requests[0].body;
  assert.equal(body.model, "fake-model");
  assert.deepEqual(body.messages, [
    { role: "system", content: "test system" },
    { role: "user", content: "do it" },
  ]);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal(body.tools[0].function.name, "bash");
  assert.equal(server.requests[0].headers.authorization, "Bearer test-key");
});

test("a server that ignores stream:true and answers plain JSON still works", async () => {
  const { result } = await run([
    { json: { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } },
    { json: { text: "done" } },
  ]);
  assert.equal(result.answer, "done");
  assert.equal(server.requests[1].body.messages.at(-1).content, "hi\n[exit code: 0]");
});

test("one tool call: the command runs and its output goes back with the call's id", async () => {
  const { result } = await run([
    {
      reply: {
        text: "Let me look.",
        toolCalls: [{ id: "call_abc", name: "bash", arguments: { command: "echo hello; echo oops >&2; exit 3" } }],
      },
    },
    { reply: { text: "It printed hello." } },
  ]);
  assert.equal(result.answer, "It printed hello.");
  const sent = server.requests[1].body.messages;
  assert.deepEqual(sent[2], {
    role: "assistant",
    content: "Let me look.",
    tool_calls: [
      {
        id: "call_abc",
        type: "function",
        function: { name: "bash", arguments: '{"command":"echo hello; echo oops >&2; exit 3"}' },
      },
    ],
  });
  assert.equal(sent[3].role, "tool");
  assert.equal(sent[3].tool_call_id, "call_abc");
  assert.match(sent[3].content, /hello/);
  assert.match(sent[3].content, /oops/);
  assert.match(sent[3].content, /\[exit code: 3\]$/);
});

test("two tool calls in one reply run concurrently and their results go back in call order", async () => {
  const dir = tempDir();
  const log = join(dir, "log");
  // Each call records its start, waits for the other's start marker (or 3 s), then records its end.
  const command = (me: string, other: string) =>
    `echo start-${me} >> ${log}; for i in $(seq 60); do grep -q start-${other} ${log} && break; sleep 0.05; done; echo end-${me} >> ${log}; echo ${me}`;
  const { result } = await run(
    [
      {
        reply: {
          toolCalls: [
            { id: "a", name: "bash", arguments: { command: command("A", "B") } },
            { id: "b", name: "bash", arguments: { command: command("B", "A") } },
          ],
        },
      },
      { reply: { text: "both done" } },
    ],
    { cwd: dir },
  );
  assert.equal(result.reason, "stop");
  const lines = readFileSync(log, "utf8").trim().split("\n");
  // Overlap: both started before either ended.
  assert.deepEqual(lines.slice(0, 2).sort(), ["start-A", "start-B"]);
  const sent = server.requests[1].body.messages.slice(3);
  assert.deepEqual(
    sent.map((m: any) => [m.tool_call_id, m.content.split("\n")[0]]),
    [
      ["a", "A"],
      ["b", "B"],
    ],
  );
});

test("arguments split into one-character chunks are assembled", async () => {
  const { events } = await run([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo 'split into many pieces'" } }], chunkSize: 1 } },
    { reply: { text: "ok" } },
  ]);
  assert.equal(toolResults(events)[0].content, "split into many pieces\n[exit code: 0]");
});

test("cut-off arguments are never run: the model is told the output limit was hit", async () => {
  const dir = tempDir();
  const { result, events } = await run(
    [
      { reply: { toolCalls: [{ name: "bash", arguments: '{"command": "touch ran' }], finishReason: "length" } },
      { reply: { text: "I will make a shorter call." } },
    ],
    { cwd: dir },
  );
  assert.equal(result.reason, "stop");
  const [toolEnd] = toolResults(events);
  assert.equal(toolEnd.isError, true);
  assert.match(toolEnd.content, /output token limit/);
  assert.match(toolEnd.content, /shorter call/);
  assert.match(server.requests[1].body.messages.at(-1).content, /was not run/);
});

test("malformed (not cut-off) arguments are worded as malformed, not as too long", async () => {
  const { events } = await run([
    { reply: { toolCalls: [{ name: "bash", arguments: '{"command": "ls",}' }], finishReason: "tool_calls" } },
    { reply: { text: "fixed" } },
  ]);
  const [toolEnd] = toolResults(events);
  assert.equal(toolEnd.isError, true);
  assert.match(toolEnd.content, /not valid JSON .*well-formed JSON object/);
  assert.doesNotMatch(toolEnd.content, /shorter call|output token limit/);
});

test("invalid JSON arguments three times in a row stop the run with a clear error", async () => {
  const bad = { reply: { toolCalls: [{ name: "bash", arguments: "{not json" }], finishReason: "tool_calls" } };
  const { result } = await run([bad, bad, bad]);
  assert.equal(result.reason, "error");
  assert.match(result.error ?? "", /invalid tool-call arguments 3 times in a row/);
  assert.equal(server.requests.length, 3);
  assert.match(server.requests[1].body.messages.at(-1).content, /not valid JSON/);
});

test("an unknown tool gets an error result naming the available tools", async () => {
  const { events } = await run([
    { reply: { toolCalls: [{ name: "teleport", arguments: {} }] } },
    { reply: { text: "sorry" } },
  ]);
  assert.equal(toolResults(events)[0].content, 'Error: there is no tool named "teleport". Available tools: bash.');
});

test("arguments that fail the schema are reported with the field name", async () => {
  const { events } = await run([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: 42 } }] } },
    { reply: { text: "sorry" } },
  ]);
  const [end] = toolResults(events);
  assert.equal(end.isError, true);
  assert.match(end.content, /invalid arguments for bash/);
  assert.match(end.content, /command/);
});

test("a tool that throws becomes an error result and the run goes on", async () => {
  const broken = defineTool({
    name: "broken",
    description: "always fails",
    kind: "read",
    input: z.object({}),
    run: async () => {
      throw new Error("disk on fire");
    },
  });
  const { result, events } = await run(
    [{ reply: { toolCalls: [{ name: "broken", arguments: {} }] } }, { reply: { text: "recovered" } }],
    { tools: [broken] },
  );
  assert.equal(result.answer, "recovered");
  assert.equal(toolResults(events)[0].content, "Error: broken failed: disk on fire");
});

test("a call that ends the run (ToolOutput.endsRun) stops it after its batch, with no further model call", async () => {
  const ender = (name: string, endsRun: RunEnding) =>
    defineTool({
      name,
      description: "ends the run",
      kind: "read",
      input: z.object({ n: z.number() }),
      run: async ({ n }) => ({ content: `ended ${n}`, endsRun }),
    });
  const tools = [bash, ender("answer", { kind: "answer", value: { n: 7 } }), ender("hand_back", { kind: "turn" })];
  // The script has one reply each: a second model call would find no step and fail the test.
  const answered = await run(
    [
      {
        reply: {
          toolCalls: [
            { name: "bash", arguments: { command: "echo beside" } },
            { name: "answer", arguments: { n: 7 } },
          ],
        },
      },
    ],
    { tools },
  );
  assert.equal(answered.result.reason, "stop");
  assert.equal(answered.result.turns, 1);
  assert.deepEqual(answered.result.structured_output, { n: 7 });
  assert.equal(answered.result.answer, '{"n":7}');
  // Both calls' results are kept, so the conversation can go on.
  assert.deepEqual(
    answered.messages.filter((m) => m.role === "tool").map((m) => m.content),
    ["beside\n[exit code: 0]", "ended 7"],
  );
  const handedBack = await run(
    [{ reply: { text: "Here.", toolCalls: [{ name: "hand_back", arguments: { n: 1 } }] } }],
    {
      tools,
    },
  );
  assert.equal(handedBack.result.reason, "stop");
  assert.equal(handedBack.result.turns, 1);
  assert.equal(handedBack.result.structured_output, undefined);
  assert.equal(handedBack.result.answer, "Here.");
});

test("a refused call goes back to the model with the user's reason", async () => {
  const { events } = await run(
    [
      { reply: { toolCalls: [{ name: "bash", arguments: { command: "rm -rf /" } }] } },
      { reply: { text: "ok, I won't" } },
    ],
    {
      approve: async () => ({ allow: false, reason: "too dangerous" }),
    },
  );
  assert.equal(toolResults(events)[0].content, "The user did not allow this tool call. The user said: too dangerous");
});

test("401 fails at once with the variable to check", async () => {
  const { result } = await run([
    { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } },
  ]);
  assert.equal(result.reason, "error");
  assert.match(result.error ?? "", /^401 authentication failed .*check OPENAI_API_KEY/);
  assert.equal(server.requests.length, 1);
});

test("404 names the model", async () => {
  const { result } = await run([
    { status: 404, body: { error: { message: "The model `fake-model` does not exist", code: "model_not_found" } } },
  ]);
  assert.match(result.error ?? "", /model "fake-model" not found/);
});

test("429 is retried after the server's retry-after, then succeeds", async () => {
  const { result, events } = await run([
    { status: 429, headers: { "retry-after": "0.05" } },
    { reply: { text: "fine now" } },
  ]);
  assert.equal(result.answer, "fine now");
  const retries = events.filter((e) => e.type === "retry");
  assert.equal(retries.length, 1);
  assert.deepEqual(retries[0], {
    type: "retry",
    attempt: 1,
    delayMs: 50,
    error: `429 fake (${server.url}/v1): fake error 429`,
  });
  // A lower bound, which a loaded machine can only lengthen: the wait really happened.
  assert.ok(server.requests[1].receivedAt - server.requests[0].receivedAt >= 45);
});

test("500 is retried with backoff, then succeeds", async () => {
  const { result } = await run([{ status: 500 }, { status: 503 }, { reply: { text: "up again" } }]);
  assert.equal(result.answer, "up again");
  assert.equal(server.requests.length, 3);
});

test("retries are bounded: persistent 500s fail with a one-line reason", async () => {
  const { result } = await run([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]);
  assert.equal(result.reason, "error");
  assert.match(result.error ?? "", /^500 /);
  assert.doesNotMatch(result.error ?? "", /\n/);
  assert.equal(server.requests.length, 4);
});

test("a stream cut mid-reply is retried and the partial reply discarded", async () => {
  const { result, messages } = await run([
    { cut: { text: "partial answer that never ends" }, afterEvents: 3 },
    { reply: { text: "complete answer" } },
  ]);
  assert.equal(result.answer, "complete answer");
  assert.equal(messages.filter((m) => m.role === "assistant").length, 1);
});

test("the turn limit stops a model that never stops calling tools", async () => {
  const loop = { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
  const { result } = await run([loop, loop, loop], { maxTurns: 3 });
  assert.equal(result.reason, "max_turns");
  assert.equal(result.turns, 3);
  assert.equal(server.requests.length, 3);
});

test("an abort during a tool kills it, records an interrupted result, and leaves a valid conversation", async () => {
  const controller = new AbortController();
  const { result, messages } = await run(
    [{ reply: { toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] } }],
    {
      signal: controller.signal,
      approve: async () => {
        setTimeout(() => controller.abort(), 200);
        return { allow: true };
      },
    },
  );
  assert.equal(result.reason, "aborted");
  const last = messages.at(-1);
  assert.equal(last?.role, "tool");
  assert.match(last?.role === "tool" ? last.content : "", /interrupted by the user/);
});

test("a tool call written as text by a local model is recognised and run", async () => {
  const { events, result } = await run([
    {
      reply: {
        text: 'I will list files.\n<tool_call>\n{"name": "bash", "arguments": {"command": "echo from-text"}}\n</tool_call>',
      },
    },
    { reply: { text: "done" } },
  ]);
  assert.equal(result.answer, "done");
  assert.equal(toolResults(events)[0].content, "from-text\n[exit code: 0]");
  const assistant = server.requests[1].body.messages[2];
  assert.equal(assistant.content, "I will list files.");
  assert.equal(assistant.tool_calls[0].function.name, "bash");
});
