// Replays every recorded chat-completions response in test/support/fixtures/wire through the real
// provider (official client, real HTTP on 127.0.0.1) and compares with the recorded parse.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, StopReason } from "../../src/core/messages.ts";
import { ProviderError } from "../../src/core/provider.ts";
import { type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { fakeOpenAIProvider } from "../support/helpers.ts";
import { billedOutput, readExpectedParses, readRecording, wireRecordings } from "../support/wire-fixtures.ts";

const expectedAll = readExpectedParses();
const files = wireRecordings("openai-chat");

/** The recorded finish reason in our neutral terms. */
function neutralStop(finish: string | null, hasCalls: boolean, isRefusal: boolean): StopReason {
  if (isRefusal) return "refusal";
  if (finish === "tool_calls" || hasCalls) return "tool_use";
  if (finish === "length") return "length";
  return "stop";
}

function stepFor(name: string, body: string): ScriptStep {
  if (name.endsWith(".sse")) return { raw: body };
  const status = /error-(\d{3})/.exec(name)?.[1];
  return status ? { status: Number(status), body: JSON.parse(body) } : { raw: body, contentType: "application/json" };
}

async function replay(name: string): Promise<{ message?: AssistantMessage; error?: ProviderError; deltas: string[] }> {
  const server = await startFakeLLM([stepFor(name, readRecording(name))]);
  const provider = fakeOpenAIProvider(server);
  const deltas: string[] = [];
  try {
    const tools = [{ name: "weather", description: "", parameters: { type: "object" } }];
    for await (const event of provider.stream(
      { system: "", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools },
      new AbortController().signal,
    )) {
      if (event.type === "text_delta") deltas.push(event.text);
      if (event.type === "done") return { message: event.message, deltas };
    }
    throw new Error("no done event");
  } catch (error) {
    if (error instanceof ProviderError) return { error, deltas };
    throw error;
  } finally {
    await server.close();
  }
}

for (const name of files) {
  test(`replay ${name}`, async () => {
    const expected = expectedAll[name].expected;
    const result = await replay(name);
    if (expected.error) {
      // Any error object in the body or stream fails the call with the server's own message,
      // even where text arrived first (the recorded parse keeps that text; a reply cut by an
      // error is not one we can use, and the loop retries or reports it).
      assert.ok(result.error, `expected a ProviderError, got ${JSON.stringify(result.message)}`);
      const detail =
        typeof expected.error.message === "string" ? expected.error.message : JSON.stringify(expected.error.message);
      assert.ok(
        result.error.message.includes(detail.slice(0, 60).replace(/\s+/g, " ").trim()),
        `${result.error.message} should include ${detail}`,
      );
      return;
    }
    assert.ok(result.message, `unexpected error: ${result.error?.message}`);
    const message = result.message;
    const choice = expected.choices ? expected.choices[0] : expected;
    const text = (choice.text ?? "") + (choice.refusal ?? "");
    const reasoning = message.content.find((p) => p.type === "thinking");
    const calls = message.content.filter((p) => p.type === "tool_call");

    assert.equal(
      message.content
        .filter((p) => p.type === "text")
        .map((p) => (p.type === "text" ? p.text : ""))
        .join(""),
      text,
    );
    assert.equal(result.deltas.join(""), text, "streamed deltas add up to the text");
    assert.equal(reasoning?.type === "thinking" ? reasoning.text : null, choice.reasoning ?? null);
    assert.equal(calls.length, (choice.tool_calls ?? []).length);
    (choice.tool_calls ?? []).forEach((call: { id: string; name: string; arguments: string }, index: number) => {
      const ours = calls[index];
      assert.ok(ours.type === "tool_call");
      assert.equal(ours.name, call.name);
      assert.equal(ours.arguments, call.arguments);
      // Deliberate difference: an empty id (Gemini's compatibility layer) is replaced by a
      // generated one, because the tool result must name the call it answers.
      if (call.id) assert.equal(ours.id, call.id);
      else assert.match(ours.id, /^call_0_/);
    });
    assert.equal(
      message.stopReason,
      neutralStop(choice.finish_reason, calls.length > 0, Boolean(choice.refusal) && !choice.text),
    );

    const usage = expected.usage;
    if (!usage) assert.equal(message.usage, undefined);
    else {
      const cached = usage.cached_tokens ?? 0;
      // xAI and Gemini leave reasoning out of completion_tokens; it is billed as output (issue 18).
      assert.deepEqual(message.usage, {
        input: usage.prompt_tokens - cached,
        output: billedOutput(usage),
        cacheRead: cached,
        cacheWrite: 0,
      });
    }
    if (choice.reasoning_details_merged)
      assert.deepEqual(message.providerData?.reasoning_details, choice.reasoning_details_merged);
  });
}

test("every openai-chat fixture has an expected parse", () => {
  assert.ok(files.length >= 20);
  for (const name of files) assert.ok(expectedAll[name], name);
});
