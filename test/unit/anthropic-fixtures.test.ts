// Recorded Anthropic responses (test/support/fixtures/wire/anthropic--*) replayed through the real
// provider and the SDK's SSE parser, whole and cut into random byte slices, against expected.json.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { AssistantMessage, ToolCallPart } from "../../src/core/messages.ts";
import { type ModelEvent, ProviderError } from "../../src/core/provider.ts";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { fakeAnthropicProvider } from "../support/helpers.ts";
import {
  readExpectedParses,
  readRecording,
  sliceBytesWithin,
  WIRE_DIR,
  wireRecordings,
} from "../support/wire-fixtures.ts";

const EXPECTED = readExpectedParses();
const FILES = wireRecordings("anthropic");
const STOP_REASONS: Record<string, string> = {
  end_turn: "stop",
  tool_use: "tool_use",
  max_tokens: "length",
  pause_turn: "pause",
};

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

async function replay(
  step: ScriptStep,
): Promise<{ events: ModelEvent[]; message?: AssistantMessage; error?: unknown }> {
  server = await startFakeLLM([step]);
  const provider = fakeAnthropicProvider(server);
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.stream(
      { system: "s", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [] },
      new AbortController().signal,
    ))
      events.push(event);
  } catch (error) {
    return { events, error };
  }
  const done = events.at(-1);
  assert.equal(done?.type, "done", "the stream ends with exactly one done");
  assert.equal(events.filter((e) => e.type === "done").length, 1);
  return { events, message: done.type === "done" ? done.message : undefined };
}

/** The oracle's blocks in neutral form. */
function neutralContent(blocks: any[]): AssistantMessage["content"] {
  return blocks.flatMap((block): AssistantMessage["content"] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: block.text }];
      case "thinking":
        return [{ type: "thinking", text: block.thinking, signature: block.signature }];
      case "redacted_thinking":
        return [{ type: "thinking", text: "", redactedData: block.data }];
      case "tool_use":
        // Arguments stay the raw JSON text (cut-off input included); "" means the start block's input.
        return [
          {
            type: "tool_call",
            id: block.id,
            name: block.name,
            arguments: block.input_json_raw || JSON.stringify(block.input),
          },
        ];
      default:
        // Deliberate difference: server_tool_use, *_tool_result and compaction blocks are kept out
        // of the neutral message's parts; the reply carries them whole in providerData, to go back.
        return [];
    }
  });
}

test("every anthropic fixture has an oracle", () => {
  server = { errors: [], close: async () => {} } as unknown as FakeLLM;
  assert.ok(FILES.length >= 9, `found ${FILES.length} anthropic fixtures in ${WIRE_DIR}`);
  for (const name of FILES) assert.ok(EXPECTED[name], `${name} is in expected.json`);
});

for (const name of FILES.filter((file) => file.endsWith(".sse"))) {
  for (const sliceBytes of [undefined, sliceBytesWithin(name, 11)]) {
    test(`replays ${name}${sliceBytes ? " in random byte slices" : ""}`, async () => {
      const expected = EXPECTED[name].expected;
      const { events, message, error } = await replay({ raw: readRecording(name), sliceBytes });
      if (expected.error) {
        assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
        assert.equal(error.kind, "overloaded");
        assert.equal(error.retryable, true);
        assert.match(error.message, new RegExp(expected.error.message));
        return;
      }
      assert.equal(error, undefined);
      assert.ok(message);
      assert.deepEqual(message.content, neutralContent(expected.content));
      assert.equal(message.stopReason, STOP_REASONS[expected.stop_reason]);
      assert.equal(message.model, expected.model);
      assert.equal(message.api, "anthropic");
      // With usage.iterations (server-side compaction) what was billed is their sum.
      const billed = expected.usage_iterations_summed ?? expected.usage;
      assert.deepEqual(message.usage, {
        input: billed.input_tokens,
        output: billed.output_tokens,
        cacheRead: billed.cache_read_input_tokens,
        cacheWrite: billed.cache_creation_input_tokens,
      });
      // Parsed tool input: valid JSON equals the oracle's object; a cut-off input does not parse.
      for (const block of expected.content.filter((b: any) => b.type === "tool_use")) {
        const call = message.content.find(
          (part): part is ToolCallPart => part.type === "tool_call" && part.id === block.id,
        );
        assert.ok(call, `tool call ${block.id}`);
        const text: string = call.arguments;
        if (block.input === null) assert.throws(() => JSON.parse(text));
        else assert.deepEqual(JSON.parse(text), block.input);
      }
      // Display deltas add up to the final message.
      const joined = (type: string) => events.map((e) => (e.type === type && "text" in e ? e.text : "")).join("");
      const texts = expected.content.filter((b: any) => b.type === "text").map((b: any) => b.text);
      assert.equal(joined("text_delta"), texts.join(""));
      assert.equal(joined("thinking_delta"), expected.content.map((b: any) => b.thinking ?? "").join(""));
      const toolDeltas = events.filter((e) => e.type === "tool_call_delta");
      assert.deepEqual(
        toolDeltas.map((e) => e.type === "tool_call_delta" && e.name),
        expected.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.name),
      );
    });
  }
}

for (const name of FILES.filter((file) => file.endsWith(".json"))) {
  test(`maps the error body ${name}`, async () => {
    const expected = EXPECTED[name].expected;
    const { error } = await replay({ status: 400, body: JSON.parse(readRecording(name)) });
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.retryable, false);
    // invalid_request_error is shown verbatim; a context-limit message is recognised as such.
    assert.ok(error.message.includes(expected.error.message), error.message);
    assert.equal(error.kind, /context limit/.test(expected.error.message) ? "context_overflow" : "bad_request");
  });
}
