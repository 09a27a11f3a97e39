// The Anthropic translators as pure functions: neutral to wire, and stream events to neutral.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/core/messages.ts";
import {
  defaultMaxTokens,
  toAnthropicRequest,
  toWireMessages,
} from "../../src/providers/anthropic/anthropic-request.ts";
import {
  AnthropicStreamAccumulator,
  toStopReason,
  toStreamEvents,
} from "../../src/providers/anthropic/anthropic-stream.ts";
import { anthropicFormat } from "../support/fake-llm/anthropic-format.ts";

const CACHE = { type: "ephemeral" };

test("tool results go together, first, in one user message; same-role messages merge; thinking keeps its signature", () => {
  const messages: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "fix it" },
        { type: "text", text: "" },
        { type: "image", mediaType: "image/png", data: "iVBOR" },
      ],
    },
    {
      role: "assistant",
      api: "anthropic",
      stopReason: "length",
      content: [
        { type: "thinking", text: "plan", signature: "sig-1" },
        { type: "thinking", text: "", redactedData: "opaque==" },
        { type: "text", text: "" },
        { type: "tool_call", id: "toolu_a", name: "read_file", arguments: '{"path":"a.ts"}' },
        { type: "tool_call", id: "toolu_b", name: "write_file", arguments: '{"path":"b.ts","content":"cut off' },
        { type: "tool_call", id: "toolu_c", name: "list_files", arguments: "" },
      ],
    },
    { role: "tool", toolCallId: "toolu_a", toolName: "read_file", content: "file a", isError: false },
    { role: "user", content: [{ type: "text", text: "and hurry" }] },
    { role: "tool", toolCallId: "toolu_b", toolName: "write_file", content: "Error: cut off", isError: true },
    { role: "tool", toolCallId: "toolu_c", toolName: "list_files", content: "", isError: false },
  ];
  assert.deepEqual(toWireMessages(messages), [
    {
      role: "user",
      content: [
        { type: "text", text: "fix it" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan", signature: "sig-1" },
        { type: "redacted_thinking", data: "opaque==" },
        { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } },
        { type: "tool_use", id: "toolu_b", name: "write_file", input: {} },
        { type: "tool_use", id: "toolu_c", name: "list_files", input: {} },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "file a" },
        { type: "tool_result", tool_use_id: "toolu_b", content: "Error: cut off", is_error: true },
        { type: "tool_result", tool_use_id: "toolu_c" },
        { type: "text", text: "and hurry" },
      ],
    },
  ]);
});

test("reasoning from another API is dropped, and a message left empty disappears", () => {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "one" }] },
    {
      role: "assistant",
      api: "openai",
      stopReason: "stop",
      content: [{ type: "thinking", text: "hmm", signature: "not-ours" }],
    },
    { role: "user", content: [{ type: "text", text: "two" }] },
    {
      role: "assistant",
      api: "openai",
      stopReason: "stop",
      content: [
        { type: "thinking", text: "hmm" },
        { type: "text", text: "Hi." },
      ],
    },
  ];
  assert.deepEqual(toWireMessages(messages), [
    {
      role: "user",
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "Hi." }] },
  ]);
});

test("the request: max_tokens per model, system and tools as cacheable blocks, the thinking fields added", () => {
  const request = {
    system: "be brief",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] as Message[],
    tools: [
      { name: "a", description: "A", parameters: { type: "object", properties: {} } },
      { name: "b", description: "B", parameters: { type: "object", properties: { x: { type: "string" } } } },
    ],
  };
  assert.deepEqual(
    toAnthropicRequest(request, "claude-opus-4-1", { thinking: { type: "enabled", budget_tokens: 4096 } }),
    {
      model: "claude-opus-4-1",
      max_tokens: 32_000,
      stream: true,
      system: [{ type: "text", text: "be brief", cache_control: CACHE }],
      tools: [
        { name: "a", description: "A", input_schema: { type: "object", properties: {} } },
        {
          name: "b",
          description: "B",
          input_schema: { type: "object", properties: { x: { type: "string" } } },
          cache_control: CACHE,
        },
      ],
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: CACHE }] }],
      thinking: { type: "enabled", budget_tokens: 4096 },
    },
  );
  const bare = toAnthropicRequest(
    { system: "", messages: request.messages, tools: [], maxTokens: 1000 },
    "claude-3-5-haiku-latest",
  );
  assert.deepEqual(Object.keys(bare).sort(), ["max_tokens", "messages", "model", "stream"]);
  assert.equal(bare.max_tokens, 1000);
  assert.deepEqual(
    [
      "claude-sonnet-4-5",
      "claude-3-7-sonnet-20250219",
      "claude-3-5-haiku-20241022",
      "claude-3-haiku-20240307",
      "glm-4.6",
    ].map(defaultMaxTokens),
    [32_000, 32_000, 8192, 4096, 8192],
  );
});

test("a trailing assistant message (a paused turn) gets the last breakpoint, never on a thinking block", () => {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "search" }] },
    {
      role: "assistant",
      api: "anthropic",
      stopReason: "pause",
      content: [
        { type: "text", text: "Searching" },
        { type: "thinking", text: "t", signature: "s" },
      ],
    },
  ];
  const body = toAnthropicRequest({ system: "", messages, tools: [] }, "claude-sonnet-4-5") as {
    messages: Array<{ content: Array<Record<string, unknown>> }>;
  };
  assert.deepEqual(body.messages[0].content[0].cache_control, CACHE);
  assert.deepEqual(
    body.messages[1].content.map((block) => block.cache_control),
    [CACHE, undefined],
  );
});

test("every wire stop reason has a neutral one; unknown ones fall back on whether tools were called", () => {
  const reasons = [
    "end_turn",
    "stop_sequence",
    "tool_use",
    "max_tokens",
    "model_context_window_exceeded",
    "pause_turn",
    "refusal",
  ] as const;
  assert.deepEqual(
    reasons.map((reason) => toStopReason(reason, false)),
    ["stop", "stop", "tool_use", "length", "length", "pause", "refusal"],
  );
  assert.equal(toStopReason(null, true), "tool_use");
  assert.equal(toStopReason("something_new" as never, false), "stop");
});

test("a whole (non-streamed) reply folds like its stream", () => {
  const accumulator = new AnthropicStreamAccumulator();
  const content = [
    { type: "thinking", thinking: "hm", signature: "sig" },
    { type: "text", text: "Looking." },
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
    { type: "web_search_tool_result" },
    { type: "tool_use", id: "toolu_1", name: "grep", input: { pattern: "x" } },
  ];
  const events = toStreamEvents({
    model: "claude-x",
    content,
    stop_reason: "tool_use",
    usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
  });
  const deltas = events.flatMap((event) => accumulator.add(event));
  assert.deepEqual(deltas, [
    { type: "call_usage", usage: { input: 5, output: 9, cacheRead: 100, cacheWrite: 7 } },
    { type: "thinking_delta", text: "hm" },
    { type: "text_delta", text: "Looking." },
    { type: "tool_call_delta", index: 0, id: "toolu_1", name: "grep" },
  ]);
  assert.equal(accumulator.isComplete, true);
  assert.deepEqual(accumulator.finish(), {
    role: "assistant",
    api: "anthropic",
    model: "claude-x",
    stopReason: "tool_use",
    usage: { input: 5, output: 9, cacheRead: 100, cacheWrite: 7 },
    content: [
      { type: "thinking", text: "hm", signature: "sig" },
      { type: "text", text: "Looking." },
      { type: "tool_call", id: "toolu_1", name: "grep", arguments: '{"pattern":"x"}' },
    ],
    // The server-side blocks make the reply carry its wire form, to be sent back unchanged.
    providerData: { content },
  });
});

test("a stream that stops before the stop reason is not complete", () => {
  const accumulator = new AnthropicStreamAccumulator();
  accumulator.add({ type: "message_start", message: { model: "m", usage: { input_tokens: 1 } } });
  accumulator.add({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  accumulator.add({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hal" } });
  assert.equal(accumulator.isComplete, false);
});

test("the fake server rejects what the real API would", () => {
  const body = {
    model: "m",
    stream: true,
    system: [{ type: "text", text: "s", cache_control: CACHE }],
    tools: [{ name: "t", input_schema: { type: "object" }, cache_control: CACHE }],
    messages: [
      { role: "user", content: [{ type: "text", text: "" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "x" },
          { type: "tool_use", id: "a", name: "t", input: {} },
          { type: "tool_use", id: "b", name: "t", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "hi", cache_control: CACHE },
          { type: "tool_result", tool_use_id: "a", cache_control: CACHE },
          { type: "tool_result", tool_use_id: "zz" },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "b", cache_control: CACHE }] },
    ],
  };
  assert.deepEqual(anthropicFormat.validate(body), [
    "max_tokens is missing",
    "message 0: empty text block",
    "message 1: thinking block without signature",
    "tool_use b has 0 tool_results in the next message",
    "message 2: a tool_result comes after other content",
    "message 2: tool_result zz answers no tool_use of the message before",
    "message 3: two user messages in a row",
    "message 3: tool_result b answers no tool_use of the message before",
    "5 cache_control breakpoints (at most 4)",
  ]);
});
