// The model call in flight when a run was stopped, read back from a real session file: exact where
// the wire said its tokens early (Anthropic's message_start, recorded as `call_usage`), estimated
// where it did not (OpenAI-style streams send usage last), and none once the call completed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import type { AgentEvent } from "../../src/core/events.ts";
import type { AssistantMessage, Message } from "../../src/core/messages.ts";
import { AnthropicStreamAccumulator } from "../../src/providers/anthropic/anthropic-stream.ts";
import { callInFlight } from "../../src/session/call-in-flight.ts";
import { SESSION_FORMAT_VERSION } from "../../src/session/session-entry.ts";
import { readSession } from "../../src/session/session-reader.ts";
import { SessionRecorder } from "../../src/session/session-recorder.ts";
import { SessionWriter } from "../../src/session/session-store.ts";
import { tempDir } from "../support/helpers.ts";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const usage = (input: number, output: number, cacheRead = 0) => ({ input, output, cacheRead, cacheWrite: 0 });

/** A session file written by the recorder from `events`, read back as the batch reads it. */
function sessionOf(events: AgentEvent[]) {
  const dir = tempDir();
  const id = "mabcdefg-0001";
  const recorder = new SessionRecorder(
    SessionWriter.create(dir, {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id,
      cwd: "/work/project",
      provider: "anthropic",
      model: "claude-test",
      startedAt: "2025-01-01T00:00:00.000Z",
      harnessVersion: "test",
    }),
  );
  recorder.record({ type: "start", schemaVersion: 1, provider: "anthropic", model: "claude-test", sessionId: id });
  for (const event of events) recorder.record(event);
  return readSession(join(dir, `${id}.jsonl`));
}

test("Anthropic's message_start gives the call's input and cache tokens before any output", () => {
  const stream = new AnthropicStreamAccumulator();
  // The shape of https://docs.anthropic.com/en/docs/build-with-claude/streaming (message_start's usage).
  const events = stream.add({
    type: "message_start",
    message: {
      id: "msg_1",
      model: "claude-test",
      usage: { input_tokens: 1200, cache_read_input_tokens: 300, cache_creation_input_tokens: 40, output_tokens: 1 },
    },
  });
  assert.deepEqual(events, [{ type: "call_usage", usage: { input: 1200, output: 1, cacheRead: 300, cacheWrite: 40 } }]);
});

test("a call cut off after the wire said its tokens counts them exactly, plus its partial reply's estimated output", () => {
  const partial: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "x".repeat(40) }],
    stopReason: "aborted",
  };
  const session = sessionOf([
    { type: "message", message: user("fix it") },
    { type: "turn_start", turn: 1 },
    { type: "call_usage", usage: usage(1200, 1, 300), model: "claude-test" },
    { type: "message", message: partial },
    { type: "done", reason: "aborted", answer: "", turns: 1, usage: usage(0, 0) },
  ]);
  assert.deepEqual(callInFlight(session), {
    model: "claude-test",
    usage: usage(1200, 14, 300), // 40 characters of text and the reply's framing: 14 by estimate
    estimated: true,
  });
  // Killed before any output: exact.
  const early = sessionOf([
    { type: "message", message: user("fix it") },
    { type: "call_usage", usage: usage(1200, 1, 300), model: "claude-test" },
  ]);
  assert.deepEqual(callInFlight(early), { model: "claude-test", usage: usage(1200, 1, 300), estimated: false });
});

test("a request with no usage yet is estimated from what came after the last reported one; a completed call is not in flight", () => {
  const reply: AssistantMessage = {
    role: "assistant",
    content: [{ type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"ls"}' }],
    stopReason: "tool_use",
    usage: usage(100, 20),
  };
  const toolResult: Message = {
    role: "tool",
    toolCallId: "c1",
    toolName: "bash",
    content: "a".repeat(80),
    isError: false,
  };
  const first: AgentEvent[] = [
    { type: "message", message: user("list") },
    { type: "turn_start", turn: 1 },
    { type: "message", message: reply },
    { type: "usage", usage: usage(100, 20), total: usage(100, 20) },
  ];
  assert.equal(callInFlight(sessionOf(first)), undefined, "its tools were running: no call in flight");
  const sent = sessionOf([...first, { type: "message", message: toolResult }, { type: "turn_start", turn: 2 }]);
  // The last request's 100 and its reply's 20, then the tool result: 80 characters and 4 of framing.
  assert.deepEqual(callInFlight(sent), { model: "claude-test", usage: usage(144, 0), estimated: true });

  // Interrupted after the tools' results: the same lines as a call interrupted before it streamed
  // anything. The file alone does not count it; the harness's events (`open`) decide.
  const interrupted = sessionOf([
    ...first,
    { type: "message", message: toolResult },
    { type: "done", reason: "aborted", answer: "", turns: 1, usage: usage(100, 20) },
  ]);
  assert.equal(callInFlight(interrupted), undefined);
  assert.equal(callInFlight(interrupted, false), undefined);
  assert.deepEqual(callInFlight(interrupted, true)?.usage, usage(144, 0));

  // A call that failed (its retries spent) was refused, not billed.
  const failed = sessionOf([
    { type: "message", message: user("list") },
    { type: "done", reason: "error", error: "500 server error", answer: "", turns: 1, usage: usage(0, 0) },
  ]);
  assert.equal(callInFlight(failed), undefined);
});
