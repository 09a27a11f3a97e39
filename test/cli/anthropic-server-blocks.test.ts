// Anthropic replies with server-side blocks, through the built CLI: a paused turn goes back
// exactly as it came (server_tool_use, web_search_tool_result, cited text), and usage listed
// per iteration (server-side compaction) is summed.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const sse = (events: Array<Record<string, unknown>>) =>
  events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
const flags = (server: FakeLLM) => [
  "--provider",
  "anthropic",
  "--base-url",
  server.url,
  "--model",
  "claude-sonnet-4-5",
  "--output",
  "stream-json",
];
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));

const searchResult = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_1",
  content: [
    {
      type: "web_search_result",
      title: "Weather",
      url: "https://example.com/w",
      encrypted_content: "EqgfCioIARgB",
      page_age: null,
    },
  ],
};
const citation = {
  type: "web_search_result_location",
  cited_text: "Sunny, 21 C",
  url: "https://example.com/w",
  title: "Weather",
  encrypted_index: "Eo8BCioIAhgB",
};

test("pause_turn: the continuation sends the paused content back unchanged, server tool blocks included", async () => {
  const paused = sse([
    { type: "message_start", message: { model: "claude-sonnet-4-5", usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Searching." } },
    { type: "content_block_stop", index: 0 },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
    },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"query": "weath' } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'er"}' } },
    { type: "content_block_stop", index: 1 },
    { type: "content_block_start", index: 2, content_block: searchResult },
    { type: "content_block_stop", index: 2 },
    { type: "content_block_start", index: 3, content_block: { type: "text", text: "", citations: [] } },
    { type: "content_block_delta", index: 3, delta: { type: "citations_delta", citation } },
    { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "It is sunny." } },
    { type: "content_block_stop", index: 3 },
    { type: "message_delta", delta: { stop_reason: "pause_turn" }, usage: { output_tokens: 20 } },
    { type: "message_stop" },
  ]);
  const done = sse([
    { type: "message_start", message: { model: "claude-sonnet-4-5", usage: { input_tokens: 30, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " 21 C." } },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } },
    { type: "message_stop" },
  ]);
  const fake = await serve([{ raw: paused, sliceBytes: 13 }, { raw: done }]);
  const result = await runCli([...flags(fake), "-p", "weather?"], { env: cleanEnv({ HARNESS_API_KEY: "k" }) });
  assert.equal(result.code, 0, result.stderr);
  const resent = fake.requests[1].body.messages.at(-1);
  assert.equal(resent.role, "assistant");
  // The cache breakpoint the request adds on its last block is ours, not the server's.
  const content = resent.content.map(({ cache_control, ...block }: Record<string, unknown>) => block);
  assert.deepEqual(content, [
    { type: "text", text: "Searching." },
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "weather" } },
    searchResult,
    { type: "text", text: "It is sunny.", citations: [citation] },
  ]);
  assert.equal(lines(result.stdout).at(-1).answer, " 21 C.");
});

test("usage.iterations are summed: compaction and message steps are both billed", async () => {
  const iterations = [
    {
      type: "compaction",
      input_tokens: 60385,
      output_tokens: 522,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    {
      type: "message",
      input_tokens: 612,
      output_tokens: 2819,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 7,
    },
  ];
  const reply = sse([
    { type: "message_start", message: { model: "claude-opus-4-6", usage: { input_tokens: 60385, output_tokens: 5 } } },
    { type: "content_block_start", index: 0, content_block: { type: "compaction", content: null } },
    { type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: "## Summary" } },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Answer." } },
    {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: {
        input_tokens: 612,
        output_tokens: 2819,
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 7,
        iterations,
      },
    },
    { type: "message_stop" },
  ]);
  const fake = await serve([{ raw: reply }]);
  const result = await runCli([...flags(fake), "-p", "go"], { env: cleanEnv({ HARNESS_API_KEY: "k" }) });
  assert.equal(result.code, 0, result.stderr);
  const events = lines(result.stdout);
  assert.deepEqual(events.find((e) => e.type === "usage").usage, {
    input: 60997,
    output: 3341,
    cacheRead: 40,
    cacheWrite: 7,
  });
  const message = events.find((e) => e.type === "message" && e.message.role === "assistant").message;
  assert.deepEqual(
    message.providerData.content[0],
    { type: "compaction", content: "## Summary" },
    "the compaction block is kept to go back",
  );
});

test('config.json "webSearch" turns on Anthropic\'s web search tool, first among the tools; other APIs never see it', async () => {
  const env = cleanEnv({ HARNESS_API_KEY: "k" });
  writeFileSync(join(env.HARNESS_HOME!, "config.json"), JSON.stringify({ webSearch: { maxUses: 3 } }));
  const anthropic = await serve([{ reply: { text: "ok" } }]);
  const result = await runCli([...flags(anthropic), "-p", "news?"], { env });
  assert.equal(result.code, 0, result.stderr);
  const tools = anthropic.requests[0].body.tools as Array<Record<string, unknown>>;
  assert.deepEqual(tools[0], { type: "web_search_20250305", name: "web_search", max_uses: 3 });
  assert.ok(tools.length > 1, "the function tools are still there");
  assert.ok(tools.at(-1)!.cache_control, "the cache breakpoint stays on the last tool");

  const openai = await serve([{ reply: { text: "ok" } }]);
  const other = await runCli(["--base-url", openai.url, "--model", "m", "-p", "news?"], { env });
  assert.equal(other.code, 0, other.stderr);
  const names = (openai.requests[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  assert.ok(!names.includes("web_search"));
});

test('a broken "webSearch" in config.json is a usage error naming the field', async () => {
  const env = cleanEnv({ HARNESS_API_KEY: "k" });
  writeFileSync(join(env.HARNESS_HOME!, "config.json"), JSON.stringify({ webSearch: { max: 3 } }));
  const result = await runCli(["--provider", "anthropic", "-p", "hi"], { env });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /config\.json: webSearch/);
});
