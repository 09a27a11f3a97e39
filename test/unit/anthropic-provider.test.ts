// The loop and the Anthropic provider together, against the scripted fake server. Streams are
// written in random byte slices (cut anywhere, even inside a UTF-8 character) unless noted.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { z } from "zod";
import { type RunOptions, runAgent } from "../../src/core/agent.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { Message } from "../../src/core/messages.ts";
import { ProviderError } from "../../src/core/provider.ts";
import { defineTool } from "../../src/core/tool.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { anthropicFormat, fakeSignature } from "../support/fake-llm/anthropic-format.ts";
import { type FakeLLM, type ReplySpec, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, fakeAnthropicProvider, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

const FAST_RETRY = { maxRetries: 4, baseDelayMs: 5 };
const CACHE = { type: "ephemeral" };

const echo = defineTool({
  name: "echo",
  description: "Repeats the text.",
  kind: "read",
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

/** A reply streamed in slices of 1 to 9 bytes. */
function sliced(reply: ReplySpec): ScriptStep {
  return { raw: anthropicFormat.streamEvents(reply).join(""), sliceBytes: 9 };
}

function provider(extra: Partial<ProviderSettings> = {}) {
  return fakeAnthropicProvider(server, extra);
}

async function run(script: ScriptStep[], options: Partial<RunOptions> & { settings?: Partial<ProviderSettings> } = {}) {
  server = await startFakeLLM(script);
  const messages: Message[] = options.messages ?? [];
  const { settings, ...rest } = options;
  const { events, result } = await drain(
    runAgent({
      provider: provider(settings),
      tools: [echo],
      system: "test system",
      cwd: tempDir(),
      messages,
      prompt: "do it",
      retry: FAST_RETRY,
      ...rest,
    }),
  );
  return { result, events, messages };
}

const retries = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: "retry" }> => e.type === "retry");
const deltas = (events: AgentEvent[], type: "text_delta" | "thinking_delta") =>
  events.map((e) => (e.type === type ? e.text : "")).join("");

test("a text reply cut into byte slices arrives whole, with its usage", async () => {
  const text = "Grüße — all done ✅ (ünïcode).";
  const { result, events } = await run([
    sliced({
      text,
      chunkSize: 3,
      usage: { input_tokens: 3, output_tokens: 7, cache_read_input_tokens: 120, cache_creation_input_tokens: 15 },
    }),
  ]);
  assert.equal(result.reason, "stop");
  assert.equal(result.answer, text);
  assert.equal(deltas(events, "text_delta"), text);
  assert.deepEqual(result.usage, { input: 3, output: 7, cacheRead: 120, cacheWrite: 15 });
});

test("a tool round trip: the request carries max_tokens, input_schema, and the tool_result first in the next user message", async () => {
  const { result } = await run(
    [
      sliced({ text: "Let me echo.", toolCalls: [{ id: "toolu_a", name: "echo", arguments: { text: "hi" } }] }),
      sliced({ text: "Done." }),
    ],
    { settings: { headers: { "x-team": "blue" } } },
  );
  assert.equal(result.answer, "Done.");
  assert.equal(server.requests.length, 2);
  const request = server.requests[1];
  assert.equal(request.path, "/v1/messages");
  assert.equal(request.headers["x-api-key"], "test-key");
  assert.equal(request.headers["x-team"], "blue");
  assert.ok(request.headers["anthropic-version"]);
  const { tools, ...body } = request.body;
  assert.deepEqual(body, {
    model: "claude-sonnet-4-5",
    max_tokens: 32_000,
    stream: true,
    system: [{ type: "text", text: "test system", cache_control: CACHE }],
    messages: [
      { role: "user", content: [{ type: "text", text: "do it", cache_control: CACHE }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me echo." },
          { type: "tool_use", id: "toolu_a", name: "echo", input: { text: "hi" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "echo: hi", cache_control: CACHE }],
      },
    ],
  });
  assert.deepEqual(tools, [
    {
      name: "echo",
      description: "Repeats the text.",
      input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      cache_control: CACHE,
    },
  ]);
});

test("several tool_use blocks in one reply: all results go back together, in call order", async () => {
  const calls = ["one", "two", "three"].map((text, i) => ({ id: `toolu_${i}`, name: "echo", arguments: { text } }));
  const { result, events } = await run([sliced({ toolCalls: calls, chunkSize: 2 }), sliced({ text: "All echoed." })]);
  assert.equal(result.answer, "All echoed.");
  assert.deepEqual(events.flatMap((e) => (e.type === "tool_end" ? [e.content] : [])).sort(), [
    "echo: one",
    "echo: three",
    "echo: two",
  ]);
  const messages = server.requests[1].body.messages;
  assert.equal(messages.length, 3);
  assert.deepEqual(
    messages[2].content.map((block: any) => [block.type, block.tool_use_id, block.content]),
    [
      ["tool_result", "toolu_0", "echo: one"],
      ["tool_result", "toolu_1", "echo: two"],
      ["tool_result", "toolu_2", "echo: three"],
    ],
  );
});

test("thinking streams as thinking_delta and goes back unchanged with its signature", async () => {
  const reasoning = "The user wants an echo ✨; call the tool.";
  const { result, events } = await run(
    [
      sliced({ reasoning, toolCalls: [{ id: "toolu_t", name: "echo", arguments: { text: "x" } }] }),
      sliced({ text: "ok" }),
    ],
    {
      settings: { thinking: 2048 },
    },
  );
  assert.equal(result.answer, "ok");
  assert.equal(deltas(events, "thinking_delta"), reasoning);
  assert.deepEqual(server.requests[0].body.thinking, { type: "enabled", budget_tokens: 2048 });
  assert.deepEqual(server.requests[1].body.messages[1].content, [
    { type: "thinking", thinking: reasoning, signature: fakeSignature(reasoning) },
    { type: "tool_use", id: "toolu_t", name: "echo", input: { text: "x" } },
  ]);
});

test("redacted thinking goes back as redacted_thinking with its data on the next prompt", async () => {
  const data = "EqkECkYIBxgCKkA8+/redacted==";
  const raw = [
    `event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":9,"output_tokens":1}}}\n\n`,
    `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"${data}"}}\n\n`,
    `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`,
    ...anthropicFormat
      .streamEvents({ text: "Hello." })
      .filter((event) => event.includes("index") && !event.includes("thinking"))
      .map((event) => event.replace(/"index":0/g, '"index":1')),
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}\n\n`,
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
  ].join("");
  const first = await run([{ raw, sliceBytes: 5 }]);
  assert.equal(first.result.answer, "Hello.");
  server.push(sliced({ text: "Again." }));
  const generator = runAgent({
    provider: provider(),
    tools: [echo],
    system: "s",
    cwd: tempDir(),
    messages: first.messages,
    prompt: "more",
    retry: FAST_RETRY,
  });
  while (!(await generator.next()).done);
  assert.deepEqual(server.requests[1].body.messages[1], {
    role: "assistant",
    content: [
      { type: "redacted_thinking", data },
      { type: "text", text: "Hello." },
    ],
  });
});

test("an overloaded_error event mid-stream is retried", async () => {
  const partial = anthropicFormat.streamEvents({ text: "Half an ans" }).slice(0, 5).join("");
  const error = `event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n`;
  const { result, events } = await run([{ raw: partial + error, sliceBytes: 7 }, sliced({ text: "Whole answer." })]);
  assert.equal(result.answer, "Whole answer.");
  assert.equal(retries(events).length, 1);
  assert.match(retries(events)[0].error, /Overloaded/);
  assert.equal(server.requests.length, 2);
});

test("a 529 is retried as overloaded", async () => {
  const { result, events } = await run([{ status: 529 }, sliced({ text: "Fine now." })]);
  assert.equal(result.answer, "Fine now.");
  assert.equal(retries(events).length, 1);
  assert.match(retries(events)[0].error, /^529 /);
});

test("a stream that breaks off, or ends cleanly before its stop reason, is retried as a dropped connection", async () => {
  const partial = anthropicFormat.streamEvents({ text: "This will be cut off somewhere." }).slice(0, 5).join("");
  const { result, events } = await run([
    { cut: { text: "Cut too." }, afterEvents: 4 },
    { raw: partial, sliceBytes: 9 },
    sliced({ text: "Complete." }),
  ]);
  assert.equal(result.answer, "Complete.");
  assert.deepEqual(
    retries(events).map((retry) => retry.error.replace(/\(http:[^)]*\)/, "(url)")),
    [
      "cannot reach anthropic (url): socket hang up (ECONNRESET)",
      "the connection to anthropic dropped before the reply was complete",
    ],
  );
});

test("max_tokens in the middle of a tool input goes back to the model as a tool error", async () => {
  const { result } = await run([
    sliced({
      text: "Writing it.",
      toolCalls: [{ id: "toolu_cut", name: "echo", arguments: '{"text": "a very long te' }],
      finishReason: "max_tokens",
    }),
    sliced({ text: "I'll write less." }),
  ]);
  assert.equal(result.answer, "I'll write less.");
  const [, assistant, user] = server.requests[1].body.messages;
  assert.deepEqual(assistant.content[1], { type: "tool_use", id: "toolu_cut", name: "echo", input: {} });
  assert.equal(user.content[0].tool_use_id, "toolu_cut");
  assert.equal(user.content[0].is_error, true);
  assert.match(user.content[0].content, /output token limit/);
});

test("cache breakpoints: tools and system, then the newest message and where the previous request ended", async () => {
  const turns = Array.from({ length: 9 }, (_, i) =>
    sliced({ toolCalls: [{ id: `toolu_${i}`, name: "echo", arguments: { text: `turn ${i}` } }] }),
  );
  const { result } = await run([...turns, sliced({ text: "Finished." })]);
  assert.equal(result.answer, "Finished.");
  assert.equal(result.turns, 10);
  const breakpoints = (body: any) => [
    ...(body.tools ?? []).flatMap((tool: any, i: number) => (tool.cache_control ? [`tools[${i}]`] : [])),
    ...(body.system ?? []).flatMap((block: any, i: number) => (block.cache_control ? [`system[${i}]`] : [])),
    ...body.messages.flatMap((message: any, m: number) =>
      message.content.flatMap((block: any, b: number) => (block.cache_control ? [`messages[${m}].content[${b}]`] : [])),
    ),
  ];
  assert.deepEqual(breakpoints(server.requests[0].body), ["tools[0]", "system[0]", "messages[0].content[0]"]);
  assert.deepEqual(breakpoints(server.requests[1].body), [
    "tools[0]",
    "system[0]",
    "messages[0].content[0]",
    "messages[2].content[0]",
  ]);
  assert.equal(server.requests[9].body.messages.length, 19);
  assert.deepEqual(breakpoints(server.requests[9].body), [
    "tools[0]",
    "system[0]",
    "messages[16].content[0]",
    "messages[18].content[0]",
  ]);
  assert.ok(
    server.requests.every((request) => request.body.system[0].cache_control && request.body.tools[0].cache_control),
  );
});

test("pause_turn: the loop calls again, sending the paused reply back as the last message", async () => {
  const { result } = await run([
    sliced({ text: "Still searching", finishReason: "pause_turn" }),
    sliced({ text: "Found it." }),
  ]);
  assert.equal(result.answer, "Found it.");
  assert.deepEqual(server.requests[1].body.messages.at(-1), {
    role: "assistant",
    content: [{ type: "text", text: "Still searching", cache_control: CACHE }],
  });
});

test("a server that ignores stream:true and answers one JSON message still works", async () => {
  const { result } = await run([
    { json: { toolCalls: [{ id: "toolu_j", name: "echo", arguments: { text: "json" } }] } },
    { json: { text: "done" } },
  ]);
  assert.equal(result.answer, "done");
  assert.equal(server.requests[1].body.messages[2].content[0].content, "echo: json");
});

test("401 fails at once and names the key to check", async () => {
  const { result, events } = await run([{ status: 401 }]);
  assert.equal(result.reason, "error");
  assert.match(result.error ?? "", /^401 authentication failed .*check ANTHROPIC_API_KEY/);
  assert.equal(retries(events).length, 0);
});

test("an interrupted request ends as aborted", async () => {
  server = await startFakeLLM([{ hang: true }]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const stream = provider().stream(
    { system: "", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [] },
    controller.signal,
  );
  await assert.rejects(
    async () => {
      for await (const _ of stream);
    },
    (error: unknown) => error instanceof ProviderError && error.kind === "aborted",
  );
});
