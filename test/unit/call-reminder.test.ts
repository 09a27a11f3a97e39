// A call's reminder (core/call-reminder.ts) goes on the newest message of the request as sent and
// never into the conversation; after a paused reply, which the call continues, nothing is added.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sentRequest } from "../../src/core/call-reminder.ts";
import type { Message } from "../../src/core/messages.ts";

const NOTE = "<system-reminder>note</system-reminder>";
const base = { system: "s", tools: [] };
const prompt: Message = { role: "user", content: [{ type: "text", text: "plan it" }] };
const reply: Message = {
  role: "assistant",
  content: [{ type: "tool_call", id: "r", name: "read_file", arguments: "{}" }],
  model: "m",
  stopReason: "pause",
};
const result: Message = { role: "tool", toolCallId: "r", toolName: "read_file", content: "x", isError: false };

test("the reminder is the prompt's last part, or a user message after results, and the conversation keeps none", () => {
  const messages = [prompt];
  const sent = sentRequest({ ...base, messages, reminder: NOTE });
  assert.deepEqual(sent.messages, [{ role: "user", content: [...prompt.content, { type: "text", text: NOTE }] }]);
  assert.equal("reminder" in sent, false, "the field is not sent on");
  assert.deepEqual(messages, [prompt]);
  assert.deepEqual(prompt.content, [{ type: "text", text: "plan it" }]);

  const afterResults = sentRequest({ ...base, messages: [prompt, reply, result], reminder: NOTE }).messages;
  assert.deepEqual(afterResults, [prompt, reply, result, { role: "user", content: [{ type: "text", text: NOTE }] }]);
});

test("no reminder after a reply the call continues, nor without one", () => {
  const paused = [prompt, reply];
  assert.equal(sentRequest({ ...base, messages: paused, reminder: NOTE }).messages, paused);
  assert.equal(sentRequest({ ...base, messages: paused }).messages, paused);
  assert.equal(sentRequest({ ...base, messages: [prompt], reminder: undefined }).messages.length, 1);
});
