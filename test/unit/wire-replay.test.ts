// Every recorded response of the wire corpus (test/support/fixtures/wire, origins in its MANIFEST.md),
// replayed in-process through the loop and the provider the CLI would build from the same flags
// (resolveProvider, createProvider: the adapter behind the edge, over real HTTP) against a server
// on 127.0.0.1 that sends the recorded bytes: once whole and once cut into seeded random byte
// slices (two runs of one conversation). Checked against the recorded parse in expected.json:
// text, thinking, tool calls with ids and arguments, stop reason, usage, the streamed deltas, and
// the reply as the follow-up request echoes it. Error recordings: the message reaches the user,
// retried or not as docs/events.md says. In-process, not through the built CLI: what is checked is
// the translation, and 68 CLI processes cost minutes (the CLI's stream-json output of these same
// events is checked in events-stream-json.test.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { Message } from "../../src/core/messages.ts";
import { createProvider } from "../../src/providers/create-provider.ts";
import { resolveProvider } from "../../src/wiring/resolve-provider.ts";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, tempDir } from "../support/helpers.ts";
import {
  billedOutput,
  readExpectedParses,
  readRecording,
  sliceBytesWithin,
  wireRecordings,
} from "../support/wire-fixtures.ts";

/** Runs `body` against its own fake server, closed and checked afterwards. */
async function withServer(script: ScriptStep[], body: (server: FakeLLM) => Promise<void>): Promise<void> {
  const server = await startFakeLLM(script);
  try {
    await body(server);
  } finally {
    await server.close();
  }
  assert.deepEqual(server.errors, []);
}
const EXPECTED = readExpectedParses();
const RECORDINGS = [
  ...wireRecordings("openai-chat"),
  ...wireRecordings("anthropic"),
  ...wireRecordings("openai-responses"),
];
/** What a follow-up turn answers after the recorded reply's tool calls ran, or after its pause. */
const FOLLOW_UP: ScriptStep = { reply: { text: "ok" } };

type Api = "openai-chat" | "anthropic" | "openai-responses";
const apiOf = (name: string): Api => name.split("--")[0] as Api;

/** The slice size cap for a recording: 1..16 bytes, from its name, so a failure replays the same way. */
function sliceBytesFor(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 2147483647;
  return sliceBytesWithin(name, 1 + (hash % 16));
}

function stepFor(name: string, sliceBytes?: number): ScriptStep {
  const body = readRecording(name);
  if (name.endsWith(".sse")) return { raw: body, ...(sliceBytes ? { sliceBytes } : {}) };
  const status = /error-(\d{3})/.exec(name)?.[1];
  return status ? { status: Number(status), body: JSON.parse(body) } : { raw: body, contentType: "application/json" };
}

/** What `--provider`, `--api` and `--base-url` pick for each API: the provider the CLI would build. */
async function providerFor(api: Api, server: FakeLLM) {
  const choice = {
    anthropic: { provider: "anthropic", baseUrl: server.url, model: "claude-sonnet-4-5" },
    "openai-chat": { provider: "openai", baseUrl: server.baseUrl, model: "fake-model" },
    "openai-responses": { provider: "openai", api: "responses", baseUrl: server.baseUrl, model: "fake-model" },
  } as const;
  return createProvider(resolveProvider(choice[api], { HARNESS_API_KEY: "test-key" }));
}

/**
 * Runs each prompt in turn on one conversation, as a `--input stream-json` session would: every
 * run's events, from its `start` to its `done`. No tools: a recorded call names the recording's
 * own tools, so its result is an error the follow-up request carries; no context window, so no
 * compaction (the web-search turn reports 404,500 input tokens). Retries wait 5 ms, as the
 * tests' HARNESS_RETRY_BASE_MS makes the CLI wait.
 */
async function runConversation(api: Api, server: FakeLLM, prompts: string[]): Promise<AgentEvent[][]> {
  const provider = await providerFor(api, server);
  const messages: Message[] = [];
  const runs: AgentEvent[][] = [];
  for (const prompt of prompts) {
    const run = runAgent({
      provider,
      tools: [],
      system: "You replay recordings.",
      cwd: tempDir(),
      messages,
      prompt,
      retry: { maxRetries: 4, baseDelayMs: 5 },
    });
    runs.push((await drain(run)).events);
  }
  return runs;
}

/** The recorded parse in neutral terms: what the assistant message and the usage event must hold. */
interface Expectation {
  text: string;
  thinking: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  stopReason: string;
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Checks the reply as the next request (its body) sends it back. */
  checkEcho(followUp: any): void;
}

/** The last assistant message of a chat-completions or Messages request. */
const lastAssistant = (followUp: any) => followUp.messages.filter((m: any) => m.role === "assistant").at(-1);

function openaiExpectation(expected: any): Expectation {
  // Streams are recorded per choice; a non-streamed body as its message, at the top level.
  const choice = expected.choices ? expected.choices[0] : expected;
  const details: any[] | undefined = choice.reasoning_details_merged;
  const readable = (details ?? [])
    .map((d) =>
      d.type === "reasoning.text" ? (d.text ?? "") : d.type === "reasoning.summary" ? (d.summary ?? "") : "",
    )
    .join("");
  const calls = (choice.tool_calls ?? []).map((call: any) => ({
    id: call.id,
    name: call.name,
    arguments: call.arguments,
  }));
  const text = (choice.text ?? "") + (choice.refusal ?? "");
  const usage = expected.usage;
  return {
    text,
    thinking: choice.reasoning ?? readable,
    calls,
    stopReason:
      choice.refusal && !choice.text
        ? "refusal"
        : choice.finish_reason === "length"
          ? "length"
          : calls.length > 0
            ? "tool_use"
            : "stop",
    usage: usage
      ? {
          input: usage.prompt_tokens - (usage.cached_tokens ?? 0),
          output: billedOutput(usage),
          cacheRead: usage.cached_tokens ?? 0,
          cacheWrite: 0,
        }
      : undefined,
    checkEcho(followUp) {
      const message = lastAssistant(followUp);
      // The reply goes back to its own source as it came, whitespace-only text too (providers/replay.ts).
      assert.equal(message.content, text || null);
      assert.deepEqual(
        message.tool_calls,
        calls.map((call: any, position: number) => ({
          id: call.id || message.tool_calls[position].id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      );
      if (details)
        assert.deepEqual(message.reasoning_details, details, "reasoning_details go back entry by entry, unchanged");
    },
  };
}

const ANTHROPIC_STOP: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_use",
  max_tokens: "length",
  pause_turn: "pause",
  refusal: "refusal",
};

function anthropicExpectation(expected: any): Expectation {
  const blocks: any[] = expected.content;
  const calls = blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: b.id, name: b.name, arguments: b.input_json_raw || JSON.stringify(b.input ?? {}) }));
  const usage = expected.usage_iterations_summed ?? expected.usage;
  return {
    text: blocks.map((b) => (b.type === "text" ? b.text : "")).join(""),
    thinking: blocks.map((b) => (b.type === "thinking" ? b.thinking : "")).join(""),
    calls,
    stopReason: ANTHROPIC_STOP[expected.stop_reason],
    usage: {
      input: usage.input_tokens,
      output: usage.output_tokens,
      cacheRead: usage.cache_read_input_tokens,
      cacheWrite: usage.cache_creation_input_tokens,
    },
    checkEcho(followUp) {
      const sent = lastAssistant(followUp).content.map(({ cache_control, ...block }: any) => block);
      const wanted = blocks.flatMap((b): any[] => {
        switch (b.type) {
          case "text":
            return b.text ? [{ type: "text", text: b.text, ...(b.citations ? { citations: b.citations } : {}) }] : [];
          case "thinking":
            return [{ type: "thinking", thinking: b.thinking, signature: b.signature }];
          case "redacted_thinking":
            return [{ type: "redacted_thinking", data: b.data }];
          case "tool_use":
          case "server_tool_use":
            return [{ type: b.type, id: b.id, name: b.name, input: b.input ?? {} }];
          default: {
            const { input_json_raw, complete, ...whole } = b;
            return [whole];
          }
        }
      });
      assert.deepEqual(sent, wanted, "the reply goes back block by block");
    },
  };
}

/** Between reasoning summary parts, and between reasoning items, in the thinking shown. */
const SUMMARY_SEPARATOR = "\n\n";

/**
 * The recorded Responses parse: output items in order. The echo is checked against the items of
 * the recording's own `response.output_item.done` events (OpenAI encrypts the reasoning afresh
 * for `response.completed`; either copy is valid): every item back whole, except reasoning
 * without encrypted content, which a stateless request cannot use (openai-responses-request.ts).
 */
function responsesExpectation(expected: any, recording: string): Expectation {
  const items: any[] = expected.output;
  const calls = items
    .filter((item) => item.type === "function_call")
    .map((item) => ({ id: item.call_id, name: item.name, arguments: item.arguments }));
  const usage = expected.usage;
  const doneItems = recording
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)))
    .filter((event) => event.type === "response.output_item.done")
    .sort((a, b) => a.output_index - b.output_index)
    .map((event) => event.item);
  return {
    text: items.map((item) => (item.type === "message" ? item.text : "")).join(""),
    thinking: items
      .filter((item) => item.type === "reasoning")
      .map((item) => item.summary.join(SUMMARY_SEPARATOR))
      .filter(Boolean)
      .join(SUMMARY_SEPARATOR),
    calls,
    stopReason: expected.status === "incomplete" ? "length" : calls.length > 0 ? "tool_use" : "stop",
    usage: {
      input: usage.input_tokens - usage.cached_tokens,
      output: usage.output_tokens,
      cacheRead: usage.cached_tokens,
      cacheWrite: 0,
    },
    checkEcho(followUp) {
      const lastUser = followUp.input.findLastIndex((item: any) => item.role === "user");
      const sent = followUp.input.slice(lastUser + 1).filter((item: any) => item.type !== "function_call_output");
      assert.deepEqual(
        sent,
        doneItems.filter((item: any) => item.type !== "reasoning" || item.encrypted_content),
        "the output items go back whole",
      );
      for (const item of items) {
        if (item.type === "reasoning" && item.has_encrypted_content)
          assert.ok(
            sent.some((s: any) => s.id === item.id && s.encrypted_content),
            `reasoning ${item.id} goes back with its encrypted content`,
          );
      }
    },
  };
}

function checkRun(name: string, run: any[], want: Expectation): void {
  // The recorded reply is the run's first model call; a follow-up turn answers its tool calls.
  const second = run.findIndex(
    (e, index) => e.type === "turn_start" && index > run.findIndex((first) => first.type === "turn_start"),
  );
  const events = second < 0 ? run : run.slice(0, second);
  const joined = (type: string) =>
    events
      .filter((e) => e.type === type)
      .map((e) => e.text)
      .join("");
  const reply = events.find((e) => e.type === "message" && e.message.role === "assistant")?.message;
  assert.ok(reply, `${name}: an assistant message`);
  assert.equal(events.filter((e) => e.type === "retry").length, 0, `${name}: parsed without a retry`);
  const parts = (type: string) => reply.content.filter((p: any) => p.type === type);
  assert.equal(
    parts("text")
      .map((p: any) => p.text)
      .join(""),
    want.text,
    "text",
  );
  assert.equal(
    parts("thinking")
      .map((p: any) => p.text)
      .join(""),
    want.thinking,
    "thinking",
  );
  assert.equal(joined("text_delta"), want.text, "streamed text adds up to the text, shown once");
  assert.equal(joined("thinking_delta"), want.thinking, "streamed thinking adds up to the thinking");
  const calls = parts("tool_call");
  assert.deepEqual(
    calls.map((c: any) => ({ name: c.name, arguments: c.arguments })),
    want.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    "tool calls: names and raw arguments",
  );
  want.calls.forEach((call, position) => {
    // An empty id (Gemini's compatibility layer) is replaced: the result must name its call.
    if (call.id) assert.equal(calls[position].id, call.id, "tool call id");
    else assert.match(calls[position].id, /^call_\d+_/);
  });
  assert.equal(reply.stopReason, want.stopReason, "stop reason");
  const usage = events.find((e) => e.type === "usage")?.usage;
  assert.deepEqual(usage, want.usage, "usage");
}

describe("wire corpus replayed through the loop and the provider", () => {
  for (const name of RECORDINGS) {
    const expected = EXPECTED[name]?.expected;
    const api = apiOf(name);
    if (expected?.error) {
      test(`replays ${name} in-process: the error reaches the user, retried as documented`, async () => {
        const message: string =
          typeof expected.error.message === "string" ? expected.error.message : JSON.stringify(expected.error.message);
        const status =
          Number(/error-(\d{3})/.exec(name)?.[1] ?? expected.error.status_code ?? expected.error.code) || undefined;
        const isRetried = status === 429 || expected.error.type === "overloaded_error";
        const script = [stepFor(name, sliceBytesFor(name)), ...(isRetried ? [FOLLOW_UP] : [])];
        await withServer(script, async (server) => {
          const [events] = await runConversation(api, server, ["hi"]);
          const done: any = events.at(-1);
          const retries = events.filter((e: any) => e.type === "retry") as any[];
          const shown = isRetried ? retries[0]?.error : done.error;
          assert.ok(shown?.includes(message.slice(0, 60)), `${shown} should include ${message}`);
          if (isRetried) {
            assert.equal(done.reason, "stop", done.error);
            assert.equal(retries.length, 1);
            assert.equal(done.answer, "ok");
          } else {
            assert.equal(done.reason, "error");
            // A context overflow would be answered by compacting, but one prompt leaves nothing to compact.
            assert.equal(server.requests.length, 1, "not retried");
          }
        });
      });
      continue;
    }
    test(`replays ${name} in-process, whole and in byte slices of 1..${sliceBytesFor(name)}`, async () => {
      assert.ok(expected, `${name} has an expected parse`);
      const want =
        api === "anthropic"
          ? anthropicExpectation(expected)
          : api === "openai-responses"
            ? responsesExpectation(expected, readRecording(name))
            : openaiExpectation(expected);
      // Tool calls are answered and a paused turn is continued: either way a follow-up request
      // sends the recorded reply back.
      const hasCalls = want.calls.length > 0 || want.stopReason === "pause";
      const runScript = (sliceBytes?: number) => [stepFor(name, sliceBytes), ...(hasCalls ? [FOLLOW_UP] : [])];
      await withServer([...runScript(), ...runScript(sliceBytesFor(name))], async (server) => {
        const runs = await runConversation(api, server, ["hi", "again"]);
        for (const events of runs)
          assert.notEqual((events.at(-1) as any).reason, "error", JSON.stringify(events.at(-1)));
        for (const [run, events] of runs.entries()) {
          checkRun(`${name} (${run === 0 ? "whole" : "sliced"})`, events, want);
          if (!hasCalls) continue;
          want.checkEcho(server.requests[run * 2 + 1].body);
        }
      });
    });
  }
});

test("the corpus covers every provider issue 18 names, with at least 40 replayed recordings", () => {
  const replayed = RECORDINGS.filter((name) => !EXPECTED[name]?.expected?.error).length;
  assert.ok(RECORDINGS.length >= 40, `${RECORDINGS.length} recordings`);
  assert.ok(replayed >= 30, `${replayed} replayed replies`);
});
