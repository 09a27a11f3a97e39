// The wire corpus's recorded Gemini `streamGenerateContent` streams (test/support/fixtures/wire,
// origins in its MANIFEST.md: go-vcr cassettes of charmbracelet/fantasy recorded against
// generativelanguage.googleapis.com) replayed in-process through the loop and the Gemini provider
// the CLI builds for `--provider gemini`, over real HTTP, from a server on 127.0.0.1 that sends the
// recorded bytes: once whole and once in seeded byte slices (CRLF framing cut anywhere). Checked
// against the recorded parse in expected.json (an independent Python reference): text, thought
// summaries, calls with Gemini's ids and arguments, stop reason, usage, the streamed deltas, and
// the reply as the next request sends it back to Gemini: every call part and every thought
// signature as recorded.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { Message } from "../../src/core/messages.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { resolveProvider } from "../../src/wiring/resolve-provider.ts";
import { type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, tempDir } from "../support/helpers.ts";
import { readExpectedParses, readRecording, sliceBytesWithin, wireRecordings } from "../support/wire-fixtures.ts";

const EXPECTED = readExpectedParses();
const RECORDINGS = wireRecordings("gemini");

/** The model each recording was made with, as `--model` names it. */
const modelOf = (name: string) => (name.includes("gemini-3") ? "gemini-3-pro-preview" : "gemini-2.5-flash");

/** The recorded parts, event by event, in order (CRLF or LF framing). */
function recordedParts(name: string): any[] {
  return readRecording(name)
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .flatMap((line) => JSON.parse(line.slice(5)).candidates?.[0]?.content?.parts ?? []);
}

/** Two prompts on one conversation (whole, then sliced), each run's events; and the requests the server saw. */
async function replay(name: string, hasCalls: boolean): Promise<{ runs: AgentEvent[][]; requests: any[] }> {
  const steps = (sliceBytes?: number): ScriptStep[] => [
    { raw: readRecording(name), ...(sliceBytes ? { sliceBytes } : {}) },
    ...(hasCalls ? [{ reply: { text: "ok" } }] : []),
  ];
  const server = await startFakeLLM([...steps(), ...steps(sliceBytesWithin(name, 11))]);
  try {
    const settings = resolveProvider(
      { provider: "gemini", baseUrl: `${server.url}/v1beta`, model: modelOf(name) },
      { GEMINI_API_KEY: "test-key" },
    );
    const provider = await createProvider(settings);
    const messages: Message[] = [];
    const runs: AgentEvent[][] = [];
    for (const prompt of ["hi", "again"]) {
      const run = runAgent({ provider, tools: [], system: "You replay recordings.", cwd: tempDir(), messages, prompt });
      runs.push((await drain(run)).events);
    }
    assert.deepEqual(server.errors, []);
    return { runs, requests: server.requests.map((request) => request.body) };
  } finally {
    await server.close();
  }
}

describe("recorded Gemini streams replayed through the Gemini adapter", () => {
  test("the corpus holds recorded Gemini streams", () => assert.ok(RECORDINGS.length >= 5, RECORDINGS.join()));
  for (const name of RECORDINGS) {
    test(`replays ${name}, whole and in byte slices`, async () => {
      const want = EXPECTED[name]?.expected;
      assert.ok(want, `${name} has an expected parse`);
      const calls: any[] = want.function_calls;
      const { runs, requests } = await replay(name, calls.length > 0);
      for (const [index, events] of runs.entries()) {
        const label = `${name} (${index === 0 ? "whole" : "sliced"})`;
        const turn = events.slice(0, events.findIndex((e) => e.type === "usage") + 1);
        const reply: any = turn.find((e: any) => e.type === "message" && e.message.role === "assistant");
        assert.ok(reply, `${label}: an assistant message`);
        const message = reply.message;
        const joined = (type: string, key = "text") =>
          turn
            .filter((e: any) => e.type === type)
            .map((e: any) => e[key])
            .join("");
        const partsText = (type: string) =>
          message.content
            .filter((part: any) => part.type === type)
            .map((part: any) => part.text)
            .join("");
        assert.equal(partsText("text"), want.text, `${label}: text`);
        assert.equal(partsText("thinking"), want.thoughts, `${label}: thought summaries`);
        assert.equal(joined("text_delta"), want.text, `${label}: streamed text adds up`);
        assert.equal(joined("thinking_delta"), want.thoughts, `${label}: streamed thoughts add up`);
        const made = message.content.filter((part: any) => part.type === "tool_call");
        assert.deepEqual(
          made.map((call: any) => ({ name: call.name, arguments: call.arguments })),
          calls.map((call) => ({ name: call.name, arguments: JSON.stringify(call.args) })),
          `${label}: calls, arguments in the recorded key order`,
        );
        for (const [position, call] of calls.entries()) {
          if (call.id) assert.equal(made[position].id, call.id, `${label}: Gemini's own id`);
          else assert.match(made[position].id, /^call_\d+_/, `${label}: an id of ours where Gemini gave none`);
        }
        assert.equal(message.stopReason, calls.length > 0 ? "tool_use" : "stop", `${label}: stop reason`);
        const usage = want.usage;
        assert.deepEqual(
          (turn.find((e: any) => e.type === "usage") as any)?.usage,
          {
            input: usage.promptTokenCount - (usage.cachedContentTokenCount ?? 0),
            output: usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
            cacheRead: usage.cachedContentTokenCount ?? 0,
            cacheWrite: 0,
          },
          `${label}: usage (thoughts billed as output)`,
        );
      }
      // The whole run's reply as the next request sends it back: a tool call's follow-up, or the second prompt.
      const sent = requests[1].contents.filter((content: any) => content.role === "model").at(-1).parts;
      const recorded = recordedParts(name);
      for (const part of recorded.filter((p) => p.functionCall))
        assert.ok(
          sent.some((p: any) => JSON.stringify(p) === JSON.stringify(part)),
          `call part back as recorded: ${JSON.stringify(part).slice(0, 80)}`,
        );
      const signatures = recorded.filter((p) => p.thoughtSignature).map((p) => p.thoughtSignature);
      assert.equal(signatures.length, want.thought_signatures);
      assert.deepEqual(
        sent.filter((p: any) => p.thoughtSignature).map((p: any) => p.thoughtSignature),
        signatures,
        "every thought signature back, in order",
      );
      const text = (thought: boolean) =>
        sent
          .filter((p: any) => typeof p.text === "string" && (p.thought === true) === thought)
          .map((p: any) => p.text)
          .join("");
      assert.equal(text(false), want.text);
      assert.equal(text(true), want.thoughts);
      const responses = requests[1].contents.flatMap((content: any) =>
        content.parts.filter((p: any) => p.functionResponse).map((p: any) => p.functionResponse),
      );
      assert.deepEqual(
        responses.map((response: any) => [response.name, response.id]),
        calls.map((call) => [call.name, call.id]),
        "each result names its call, with Gemini's id where it gave one",
      );
    });
  }
});
