// The OpenAI Responses API through the built CLI against the fake server: the tool loop with
// reasoning items echoed unchanged, parallel calls, usage, the cut-off and failure endings, a
// plain JSON answer, and how the API is chosen (`--api`, config.json `api`); and the image part's wire form.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toResponsesRequest } from "../../src/providers/openai-responses/openai-responses-request.ts";
import { fakeEncryptedReasoning } from "../support/fake-llm/responses-format.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, jsonLines, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const responsesFlags = (fake: FakeLLM) => [
  "--provider",
  "openai",
  "--api",
  "responses",
  "--base-url",
  fake.baseUrl,
  "--model",
  "fake-model",
];
const joined = (all: any[], type: string) =>
  all
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join("");

/** A working folder with one file in it, for read_file calls (reads need no approval). */
function workspace(): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, "note.txt"), "the note says 42\n");
  writeFileSync(join(cwd, "other.txt"), "the other says 7\n");
  return cwd;
}

test("the tool loop: reasoning summary shown as thinking, its item sent back unchanged with the call and its output", async () => {
  const fake = await serve([
    {
      reply: {
        reasoning: "I should read the note.",
        text: "Reading.",
        toolCalls: [{ id: "call_a", name: "read_file", arguments: { path: "note.txt" } }],
      },
    },
    { reply: { text: "It says 42." } },
  ]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "what does the note say?"], {
    cwd: workspace(),
  });
  assert.equal(result.code, 0, result.stderr);
  const all = jsonLines(result.stdout);
  assert.equal(joined(all, "thinking_delta"), "I should read the note.");
  assert.equal(all.at(-1).answer, "It says 42.");
  assert.equal(fake.requests[0].path, "/v1/responses");

  const first = fake.requests[0].body;
  assert.equal(first.store, false);
  assert.deepEqual(first.include, ["reasoning.encrypted_content"]);
  assert.equal(first.previous_response_id, undefined);
  assert.match(first.instructions, /\S/, "the system prompt goes in instructions");
  assert.deepEqual(first.input, [{ role: "user", content: [{ type: "input_text", text: "what does the note say?" }] }]);
  const readFile = first.tools.find((tool: any) => tool.name === "read_file");
  assert.equal(readFile.type, "function");
  assert.equal(readFile.strict, false);
  assert.equal(readFile.parameters.type, "object");

  const second = fake.requests[1].body.input;
  assert.deepEqual(second.slice(1), [
    {
      id: "rs_fake",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "I should read the note." }],
      encrypted_content: fakeEncryptedReasoning("I should read the note."),
    },
    {
      id: "msg_fake",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Reading.", annotations: [] }],
    },
    {
      id: "fc_fake_1",
      type: "function_call",
      status: "completed",
      call_id: "call_a",
      name: "read_file",
      arguments: '{"path":"note.txt"}',
    },
    { type: "function_call_output", call_id: "call_a", output: second[4].output },
  ]);
  assert.match(second[4].output, /the note says 42/);
});

test("parallel function calls stream their arguments side by side and both outputs go back", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "call_1", name: "read_file", arguments: { path: "note.txt" } },
          { id: "call_2", name: "read_file", arguments: { path: "other.txt" } },
        ],
        chunkSize: 3,
      },
    },
    { reply: { text: "42 and 7." } },
  ]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "read both"], {
    cwd: workspace(),
  });
  assert.equal(result.code, 0, result.stderr);
  const starts = jsonLines(result.stdout).filter((e) => e.type === "tool_start");
  assert.deepEqual(
    starts.map((e) => [e.id, e.arguments]),
    [
      ["call_1", '{"path":"note.txt"}'],
      ["call_2", '{"path":"other.txt"}'],
    ],
  );
  const outputs = fake.requests[1].body.input.filter((item: any) => item.type === "function_call_output");
  assert.deepEqual(
    outputs.map((item: any) => item.call_id),
    ["call_1", "call_2"],
  );
  assert.match(outputs[0].output, /42/);
  assert.match(outputs[1].output, /7/);
});

test("usage counts cached input apart and reasoning as output", async () => {
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 40 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 20 },
    total_tokens: 130,
  };
  const fake = await serve([{ reply: { reasoning: "Easy.", text: "4", usage } }]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "2+2?"]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(jsonLines(result.stdout).find((e) => e.type === "usage").usage, {
    input: 60,
    output: 30,
    cacheRead: 40,
    cacheWrite: 0,
  });
});

test("response.incomplete at max_output_tokens is the chat cut-off: the cut call is not run and the model is told why", async () => {
  const fake = await serve([
    {
      reply: { toolCalls: [{ name: "bash", arguments: '{"command": "touch ran' }], finishReason: "max_output_tokens" },
    },
    { reply: { text: "I will make a shorter call." } },
  ]);
  const cwd = tempDir();
  const result = await runCli([...responsesFlags(fake), "-y", "--output", "stream-json", "-p", "go"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const assistant = jsonLines(result.stdout).find(
    (e) => e.type === "message" && e.message.role === "assistant",
  ).message;
  assert.equal(assistant.stopReason, "length");
  const toolEnd = jsonLines(result.stdout).find((e) => e.type === "tool_end");
  assert.equal(toolEnd.isError, true);
  assert.match(toolEnd.content, /output token limit/);
  const output = fake.requests[1].body.input.find((item: any) => item.type === "function_call_output");
  assert.match(output.output, /was not run/);
});

const failedEvent = (code: string, message: string) =>
  `event: response.created\ndata: ${JSON.stringify({ type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } })}\n\n` +
  `event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", response: { id: "resp_1", status: "failed", error: { code, message }, output: [] } })}\n\n`;

test("response.failed with a server error is retried; the retry names the server's message", async () => {
  const fake = await serve([
    { raw: failedEvent("server_error", "The server had an error while processing your request.") },
    { reply: { text: "ok" } },
  ]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "go"]);
  assert.equal(result.code, 0, result.stderr);
  const retry = jsonLines(result.stdout).find((e) => e.type === "retry");
  assert.match(retry.error, /The server had an error/);
  assert.equal(fake.requests.length, 2);
});

test("an error event rate_limit_exceeded is retried; an invalid prompt in response.failed is not", async () => {
  const rateLimited = `event: error\ndata: ${JSON.stringify({ type: "error", code: "rate_limit_exceeded", message: "Rate limit reached for gpt-5", param: null })}\n\n`;
  const fake = await serve([{ raw: rateLimited }, { raw: failedEvent("invalid_prompt", "Invalid prompt: flagged.") }]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "go"]);
  assert.equal(result.code, 1);
  const all = jsonLines(result.stdout);
  assert.match(all.find((e) => e.type === "retry").error, /Rate limit reached/);
  assert.match(all.at(-1).error, /Invalid prompt: flagged/);
  assert.equal(fake.requests.length, 2, "the invalid prompt is not retried");
});

test("a server that ignores stream: true and answers one JSON response still works", async () => {
  const fake = await serve([{ json: { reasoning: "Simple.", text: "Four." } }]);
  const result = await runCli([...responsesFlags(fake), "--output", "stream-json", "-p", "2+2?"]);
  assert.equal(result.code, 0, result.stderr);
  const all = jsonLines(result.stdout);
  assert.equal(all.at(-1).answer, "Four.");
  assert.equal(joined(all, "thinking_delta"), "Simple.");
});

test("choosing the API: --provider openai alone stays on chat completions; config.json api and --api pick the wire", async () => {
  const fake = await serve([
    { reply: { text: "chat" } },
    { reply: { text: "responses" } },
    { reply: { text: "back to chat" } },
  ]);
  const env = cleanEnv({ HARNESS_API_KEY: "test-key" });
  const base = ["--provider", "openai", "--base-url", fake.baseUrl, "--model", "fake-model"];
  assert.equal((await runCli([...base, "-p", "a"], { env })).stdout.trim(), "chat");
  mkdirSync(env.HARNESS_HOME as string, { recursive: true });
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ providers: { openai: { api: "responses" } } }),
  );
  assert.equal((await runCli([...base, "-p", "b"], { env })).stdout.trim(), "responses");
  assert.equal((await runCli([...base, "--api", "chat", "-p", "c"], { env })).stdout.trim(), "back to chat");
  assert.deepEqual(
    fake.requests.map((r) => r.path),
    ["/v1/chat/completions", "/v1/responses", "/v1/chat/completions"],
  );
});

test("--api refuses an unknown wire, and the local provider, with one line and exit 2", async () => {
  const unknown = await runCli(["--api", "soap", "-p", "hi"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--api takes chat, responses, anthropic or gemini/);
  const local = await runCli(["--provider", "local", "--api", "responses", "-p", "hi"]);
  assert.equal(local.code, 2);
  assert.match(local.stderr, /does not apply to the local provider/);
});

test("an image part goes to the Responses API as input_image with a data URL, beside the text", () => {
  const request = {
    system: "",
    tools: [],
    messages: [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "what is this?" },
          { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" },
        ],
      },
    ],
  };
  assert.deepEqual(toResponsesRequest(request, "gpt-5").input, [
    {
      role: "user",
      content: [
        { type: "input_text", text: "what is this?" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
      ],
    },
  ]);
});
