// Overflow recovery: the server rejects a request as too long, in each provider's own words;
// the loop compacts and retries once, then fails with an error that says what to do.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { runAgent } from "../../src/core/agent.ts";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import type { Provider } from "../../src/core/provider.ts";
import { toProviderError } from "../../src/providers/http-errors.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { type FakeLLM, type RecordedRequest, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, fakeAnthropicProvider, fakeOpenAIProvider, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  if (!server) return;
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

const FAST_RETRY = { maxRetries: 2, baseDelayMs: 5 };

/** Each provider's "too long" answer, as the real servers send it. */
const OVERFLOWS: Array<{ name: string; api: "openai" | "anthropic"; step: ScriptStep }> = [
  {
    name: "OpenAI 400 context_length_exceeded",
    api: "openai",
    step: {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    },
  },
  {
    name: "Anthropic 400 prompt is too long",
    api: "anthropic",
    step: {
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
      },
    },
  },
  {
    name: "llama.cpp 400 exceeds the available context size",
    api: "openai",
    step: {
      status: 400,
      body: {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: 5000,
          n_ctx: 4096,
        },
      },
    },
  },
  {
    name: "vLLM 400 maximum context length",
    api: "openai",
    step: {
      status: 400,
      // Current vLLM wraps it in `error`; the older top-level shape never reaches us (the SDK reads only `error`).
      body: {
        error: {
          message:
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      },
    },
  },
];

function providerFor(api: "openai" | "anthropic"): Provider {
  if (api === "openai") return fakeOpenAIProvider(server);
  return fakeAnthropicProvider(server);
}

function callStep(api: "openai" | "anthropic", id: string, command: string): ScriptStep {
  return {
    reply: {
      toolCalls: [{ id: api === "anthropic" ? `toolu_${id}` : `call_${id}`, name: "bash", arguments: { command } }],
    },
  };
}

function summaryStep(seen: RecordedRequest[]): ScriptStep {
  return (request) => {
    seen.push(request);
    return { reply: { text: "SUMMARY: echoed one." } };
  };
}

function systemOf(request: RecordedRequest): string {
  return request.format === "anthropic" ? request.body.system[0].text : request.body.messages[0].content;
}

async function run(api: "openai" | "anthropic", script: ScriptStep[]) {
  server = await startFakeLLM(script);
  // A window large enough that the threshold never triggers: only the server's refusal does.
  return drain(
    runAgent({
      provider: providerFor(api),
      tools: [bash],
      system: "test system",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      retry: FAST_RETRY,
      context: { window: 1_000_000 },
    }),
  );
}

for (const overflow of OVERFLOWS) {
  test(`${overflow.name}: compact, then retry the same turn once`, async () => {
    const summaries: RecordedRequest[] = [];
    const { events, result } = await run(overflow.api, [
      callStep(overflow.api, "1", "echo one"),
      callStep(overflow.api, "2", "echo two"),
      overflow.step,
      summaryStep(summaries),
      { reply: { text: "done" } },
    ]);
    assert.equal(result.reason, "stop", result.error);
    assert.equal(result.answer, "done");
    assert.equal(server.requests.length, 5);
    assert.equal(summaries[0], server.requests[3]);
    assert.equal(systemOf(summaries[0]), SUMMARY_SYSTEM_PROMPT);
    assert.equal(summaries[0].body.tools, undefined);

    const compaction = events.find((e): e is Extract<AgentEvent, { type: "compaction" }> => e.type === "compaction");
    assert.equal(compaction?.reason, "overflow");
    assert.equal(compaction?.keptMessages, 2);
    // The retry: the rejected request's newest call and result, behind the summary.
    const retried = server.requests[4].body.messages.filter((m: { role: string }) => m.role !== "system");
    assert.equal(retried.length < server.requests[2].body.messages.length, true);
    assert.equal(JSON.stringify(retried[0]).includes("SUMMARY: echoed one."), true);
    assert.equal(events.filter((e) => e.type === "turn_start").length, 3, "the retry is the same turn");
  });
}

test("still too long after compaction: the run fails once, clearly", async () => {
  const [openai] = OVERFLOWS;
  const { result } = await run("openai", [
    callStep("openai", "1", "echo one"),
    callStep("openai", "2", "echo two"),
    openai.step,
    summaryStep([]),
    openai.step,
  ]);
  assert.equal(result.reason, "error");
  assert.match(
    result.error ?? "",
    /^the conversation is still too long after compaction; start a new session, or use a model with a larger context window/,
  );
  assert.match(result.error ?? "", /maximum context length is 128000 tokens/);
  assert.equal(server.requests.length, 5, "one retry, no more");
});

test("too long with nothing old to summarise: the run fails with the server's reason", async () => {
  const [openai] = OVERFLOWS;
  const { result } = await run("openai", [openai.step]);
  assert.equal(result.reason, "error");
  assert.match(
    result.error ?? "",
    /the conversation is too long for fake-model: .*\(compacting the conversation did not help: there is nothing old enough to summarise/,
  );
  assert.equal(server.requests.length, 1);
});

test("without `context` an overflow is reported as it is, with no summary call", async () => {
  server = await startFakeLLM([OVERFLOWS[0].step]);
  const { result } = await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [bash],
      system: "s",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      retry: FAST_RETRY,
    }),
  );
  assert.equal(result.reason, "error");
  assert.match(result.error ?? "", /^400 the conversation is too long for fake-model/);
  assert.equal(server.requests.length, 1);
});

test("other servers' ways of saying 'too long' are recognised, and look-alikes are not", () => {
  const where = { provider: "p", model: "m", baseUrl: "http://x", api: "test" };
  const kindOf = (status: number, error: Record<string, unknown>) =>
    toProviderError({ status, error: { error } }, where).kind;
  server = undefined as unknown as FakeLLM; // no server in this test
  for (const message of [
    "input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000, decrease input length or `max_tokens` and try again",
    "input length and max_tokens exceed context limit",
    "the request exceeds the available context size, try increasing it",
    "This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens",
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens",
  ]) {
    assert.equal(kindOf(400, { message }), "context_overflow", message);
  }
  assert.equal(kindOf(400, { message: "bad", code: "context_length_exceeded" }), "context_overflow");
  assert.equal(
    kindOf(413, { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." }),
    "context_overflow",
  );
  assert.equal(kindOf(400, { message: "messages: text content blocks must be non-empty" }), "bad_request");
  assert.equal(kindOf(429, { message: "Rate limit reached for requests" }), "rate_limit");
});
