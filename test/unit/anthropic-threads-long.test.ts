// A long session (50 model calls) on message threads, through expiries and races with another
// client, against the fake that keeps threads as the API does: at every step the conversation the
// model reads (the fake rebuilds it from the thread) is the one a session without threads sends,
// and the bytes uploaded are under half of what that session uploads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { runAgent } from "../../src/core/agent.ts";
import { defineTool } from "../../src/core/tool.ts";
import { THREAD_TTL_MS, THREADS_BETA, withoutCacheMarks } from "../support/fake-llm/anthropic-threads.ts";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { drain, fakeAnthropicProvider, fakeServerPerTest, tempDir } from "../support/helpers.ts";

const start = fakeServerPerTest();
const STEPS = 50;
/** The other client's requests, told apart by their small max_tokens. */
const FOREIGN_MAX_TOKENS = 100;
const EXPIRE_AT = new Set([10, 25, 40]);
const CONTINUED_FIRST_AT = new Set([15, 30]);
const IN_FLIGHT_AT = new Set([20, 45]);

const isOurs = (request: RecordedRequest) => request.body?.max_tokens !== FOREIGN_MAX_TOKENS;

/** Answers each of our requests with the next tool call (the last with text), the other client's with text. */
function script(): ScriptStep[] {
  let ours = 0;
  const step = async (request: RecordedRequest): Promise<ScriptStep> => {
    if (!isOurs(request)) {
      if (request.headers["x-hold"]) await heldUntil;
      return { reply: { text: "the other client's" } };
    }
    ours++;
    if (ours === STEPS) return { reply: { text: "all done" } };
    return {
      reply: { text: `step ${ours}`, toolCalls: [{ id: `toolu_${ours}`, name: "note", arguments: { n: ours } }] },
    };
  };
  return Array.from({ length: STEPS * 2 }, () => step);
}

let release = () => {};
let heldUntil = Promise.resolve();

/** What happens while tool call `n` runs: nothing, or the thread is lost one way or another. */
let duringTool: (n: number) => Promise<void> = async () => {};
const note = defineTool({
  name: "note",
  description: "Notes step n and returns a page of output.",
  kind: "read",
  input: z.object({ n: z.number() }),
  run: async ({ n }) => {
    await duringTool(n);
    return `step ${n}: ${"output line of some length\n".repeat(80)}`;
  },
});

async function session(server: FakeLLM, serverState: boolean): Promise<void> {
  const { result } = await drain(
    runAgent({
      provider: fakeAnthropicProvider(server, serverState ? { serverState } : {}),
      tools: [note],
      system: "a long session",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      maxTurns: STEPS + 5,
      retry: { maxRetries: 2, baseDelayMs: 5 },
    }),
  );
  assert.equal(result.reason, "stop", result.error);
  assert.equal(result.answer, "all done");
}

/** The other client continues `previous` (answering tool call n), held open when `hold`. */
function foreign(server: FakeLLM, previous: string, n: number, hold: boolean): Promise<Response> {
  return fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-beta": THREADS_BETA, ...(hold ? { "x-hold": "1" } : {}) },
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: FOREIGN_MAX_TOKENS,
      stream: true,
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: "theirs" }] }],
      thread: { type: "continue", previous_message_id: previous },
    }),
  });
}

test("50 steps through expiries and races: the same conversation at every step, under half the bytes", async () => {
  const plain = await start(script());
  await session(plain, false);

  let now = 1_000_000;
  const threaded = await start(script());
  threaded.threads.clock = () => now;
  const others: Array<Promise<Response>> = [];
  heldUntil = new Promise<void>((resolve) => (release = resolve));
  duringTool = async (n) => {
    // The reply that asked for this call: the newest accepted threaded request's.
    const previous = `msg_thread_${threaded.requests.filter((request) => request.thread).length}`;
    if (EXPIRE_AT.has(n)) now += THREAD_TTL_MS + 1;
    if (CONTINUED_FIRST_AT.has(n)) assert.equal((await foreign(threaded, previous, n, false)).status, 200);
    if (IN_FLIGHT_AT.has(n)) {
      const count = threaded.requests.length;
      others.push(foreign(threaded, previous, n, true));
      while (threaded.requests.length === count) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  try {
    await session(threaded, true);
  } finally {
    duringTool = async () => {};
    release();
  }
  for (const response of await Promise.all(others)) assert.equal(response.status, 200);

  assert.deepEqual(threaded.threads.refusals.sort(), [
    ...Array(CONTINUED_FIRST_AT.size).fill("thread_already_continued"),
    ...Array(IN_FLIGHT_AT.size).fill("thread_continue_in_flight"),
    ...Array(EXPIRE_AT.size).fill("thread_not_found"),
  ]);
  // Every answered request of ours, in order, against the session without threads.
  const answered = threaded.requests.filter((request) => isOurs(request) && request.thread);
  assert.equal(answered.length, STEPS);
  assert.equal(plain.requests.length, STEPS);
  const seen = (request: RecordedRequest) => withoutCacheMarks(request.conversation);
  answered.forEach((request, index) => {
    assert.deepEqual(
      seen(request),
      seen(plain.requests[index]),
      `step ${index + 1}: the model read another conversation`,
    );
  });
  const modes = answered.map((request) => request.thread);
  const lost = EXPIRE_AT.size + CONTINUED_FIRST_AT.size + IN_FLIGHT_AT.size;
  assert.equal(modes.filter((mode) => mode === "create").length, 1 + lost);

  // Bytes uploaded: every request of ours, the refused continues included.
  const sum = (requests: RecordedRequest[]) => requests.reduce((total, request) => total + request.bytes, 0);
  const withThreads = sum(threaded.requests.filter(isOurs));
  const without = sum(plain.requests);
  assert.ok(withThreads * 2 < without, `with threads ${withThreads} bytes, without ${without}: not under half`);
});
