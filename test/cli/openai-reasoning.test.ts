// Reasoning in chat-completions streams, through the built CLI: OpenRouter-style
// `reasoning_details` shown as thinking and echoed back entry by entry, and `<think>` blocks
// written inline in the content.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeFlags, fakeServerPerTest, jsonLines, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

const sse = (chunks: unknown[]) =>
  `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const joined = (all: any[], type: string) =>
  all
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join("");

test("reasoning_details alone are shown as thinking; a text and an encrypted entry sharing an index both go back unchanged", async () => {
  const call = { index: 0, id: "call_1", type: "function", function: { name: "nope", arguments: "{}" } };
  const recorded = sse([
    chunk({
      role: "assistant",
      content: "",
      reasoning_details: [{ type: "reasoning.text", text: "Let me ", index: 0, format: "google-gemini-v1" }],
    }),
    chunk({ reasoning_details: [{ type: "reasoning.text", text: "check.", index: 0, format: "google-gemini-v1" }] }),
    chunk({
      reasoning_details: [
        { type: "reasoning.encrypted", data: "c2lnbmF0dXJl", index: 0, format: "google-gemini-v1", id: "tool_call_1" },
      ],
    }),
    chunk({
      reasoning_details: [{ type: "reasoning.summary", summary: "Checked.", index: 1, format: "google-gemini-v1" }],
    }),
    chunk({ tool_calls: [call] }, "tool_calls"),
  ]);
  const fake = await serve([{ raw: recorded, sliceBytes: 7 }, { reply: { text: "done" } }]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "go"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(joined(jsonLines(result.stdout), "thinking_delta"), "Let me check.Checked.");
  const echoed = fake.requests[1].body.messages.find((m: any) => m.role === "assistant");
  assert.deepEqual(echoed.reasoning_details, [
    { type: "reasoning.text", text: "Let me check.", index: 0, format: "google-gemini-v1" },
    { type: "reasoning.encrypted", data: "c2lnbmF0dXJl", index: 0, format: "google-gemini-v1", id: "tool_call_1" },
    { type: "reasoning.summary", summary: "Checked.", index: 1, format: "google-gemini-v1" },
  ]);
  assert.deepEqual(echoed.tool_calls, [
    { id: "call_1", type: "function", function: { name: "nope", arguments: "{}" } },
  ]);
});

test("a <think> block opening the content is thinking, whatever the slices; the answer after it is text", async () => {
  const pieces = ["<th", "ink>\nThe user", " wants 4.</thi", "nk>\n\n", "2+2 = 4. A <think> tag later stays text."];
  const fake = await serve([
    { raw: sse([...pieces.map((content) => chunk({ content })), chunk({}, "stop")]), sliceBytes: 5 },
  ]);
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "2+2?"]);
  assert.equal(result.code, 0, result.stderr);
  const all = jsonLines(result.stdout);
  assert.equal(joined(all, "thinking_delta"), "\nThe user wants 4.");
  assert.equal(joined(all, "text_delta"), "2+2 = 4. A <think> tag later stays text.");
  const reply = all.find((e) => e.type === "message" && e.message.role === "assistant").message;
  assert.deepEqual(reply.content, [
    { type: "thinking", text: "\nThe user wants 4." },
    { type: "text", text: "2+2 = 4. A <think> tag later stays text." },
  ]);
});

test("text that only looks like the start of a tag is text", async () => {
  const fake = await serve([
    { raw: sse([chunk({ content: "<th" }), chunk({ content: "ese are words" }), chunk({}, "stop")]) },
  ]);
  const result = await runCli([...fakeFlags(fake), "-p", "go"]);
  assert.equal(result.stdout, "<these are words\n");
});
