// Automatic compaction: the fake server reports usage near the window; the loop summarises the
// older turns with a tool-less summary request and sends a shorter, still valid conversation.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { Agent, type RunOptions, runAgent } from "../../src/core/agent.ts";
import { findCut, SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction.ts";
import { collectFacts, factsOfCallWith, readFacts, renderFacts } from "../../src/core/compaction-contract.ts";
import { estimateMessageTokens } from "../../src/core/context-budget.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import { type Message, userMessage } from "../../src/core/messages.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { exitPlanMode } from "../../src/tools/exit-plan-mode.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { todo } from "../../src/tools/todo.ts";
import { writeFile } from "../../src/tools/write-file.ts";
import { type FakeLLM, type RecordedRequest, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, fakeAnthropicProvider, fakeOpenAIProvider, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

const FAST_RETRY = { maxRetries: 2, baseDelayMs: 5 };
const CACHE = { type: "ephemeral" };

/** A reply calling bash once, reporting that the request it answered had `promptTokens` tokens. */
function bashStep(command: string, promptTokens: number, id = `call_${command.replace(/\W/g, "")}`): ScriptStep {
  return {
    reply: {
      toolCalls: [{ id, name: "bash", arguments: { command } }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
    },
  };
}

/** Recognises the summary request: no tools, the summariser's system prompt; answers with `summary`. */
function summaryStep(summary: string, seen: RecordedRequest[], anthropic = false): ScriptStep {
  return (request) => {
    seen.push(request);
    return {
      reply: {
        text: summary,
        usage: anthropic ? { output_tokens: 40 } : { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 },
      },
    };
  };
}

function systemOf(request: RecordedRequest): string {
  const body = request.body;
  if (request.format === "anthropic") return body.system.map((block: { text: string }) => block.text).join("");
  return body.messages[0].role === "system" ? body.messages[0].content : "";
}

async function run(script: ScriptStep[], options: Partial<RunOptions> = {}) {
  server = await startFakeLLM(script);
  const messages: Message[] = [];
  const { events, result } = await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [bash],
      system: "test system",
      cwd: tempDir(),
      messages,
      prompt: "count to three with echo",
      retry: FAST_RETRY,
      ...options,
    }),
  );
  return { events, result, messages };
}

const compactions = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: "compaction" }> => e.type === "compaction");

test("usage near the window: the next request is compacted into a summary plus the newest turn, and stays valid", async () => {
  const summaries: RecordedRequest[] = [];
  const { events, result, messages } = await run(
    [
      bashStep("echo one", 3000),
      bashStep("echo two", 6000),
      bashStep("echo three", 8500),
      summaryStep("SUMMARY: counted one and two with echo.", summaries),
      { reply: { text: "done" } },
    ],
    { context: { window: 10_000, keepRecent: 20 } },
  );
  assert.equal(result.reason, "stop");
  assert.equal(result.answer, "done");
  assert.equal(server.requests.length, 5);

  // The summary request: no tools, the summariser's prompt, the old part as plain text.
  const [summary] = summaries;
  assert.equal(summary, server.requests[3]);
  assert.equal(summary.body.tools, undefined);
  assert.equal(systemOf(summary), SUMMARY_SYSTEM_PROMPT);
  assert.equal(summary.body.messages.length, 2);
  const transcript: string = summary.body.messages[1].content;
  assert.match(transcript, /\[user\]\ncount to three with echo/);
  assert.match(transcript, /\[tool call bash\] \{"command":"echo one"\}/);
  assert.match(transcript, /\[bash result\]\none\n\[exit code: 0\]/);
  assert.doesNotMatch(transcript, /echo three/, "the newest turn is kept verbatim, not summarised");

  // The request after it: summary, then the newest call with its result, paired.
  const after = server.requests[4].body.messages;
  assert.deepEqual(
    after.map((m: { role: string }) => m.role),
    ["system", "user", "assistant", "tool"],
  );
  // The note: that a compaction happened and where the full record is, the facts that always
  // survive (here the user's request; bash declares no files), then the model's summary.
  const record = /what this note replaced is in (\S+compacted\S*\.txt) /.exec(after[1].content)?.[1] ?? "";
  assert.equal(
    after[1].content,
    [
      "[Summary of the earlier part of this conversation, written when it was compacted to fit the context window. Continue the work from here.]",
      `The conversation was compacted: 5 older messages were replaced by this note. The full record: what this note replaced is in ${record} (read it with read_file when a detail is missing).`,
      '## Kept through every compaction\n### The user\'s requests, oldest first (verbatim where short; the last one is the current request)\n1. "count to three with echo"',
      "## Summary of the removed part",
      "SUMMARY: counted one and two with echo.",
    ].join("\n\n"),
  );
  assert.match(
    readFileSync(record, "utf8"),
    /^\[user\]\ncount to three with echo\n\n\[assistant\]\n\[tool call bash\] \{"command":"echo one"\}\n\n\[bash result\]\none\n\[exit code: 0\]/,
  );
  assert.equal(after[2].tool_calls[0].id, "call_echothree");
  assert.equal(after[3].tool_call_id, "call_echothree");
  // The removed calls are gone (the note outweighs these tiny steps: context-progress.test.ts measures real shrinking).
  assert.doesNotMatch(JSON.stringify(server.requests[4].body), /echo one|echo two/);

  const [compaction] = compactions(events);
  assert.deepEqual(
    { ...compaction, tokensAfter: undefined },
    {
      type: "compaction",
      summary: after[1].content.slice(after[1].content.indexOf("\n\n") + 2),
      removedMessages: 5,
      keptMessages: 2,
      // Reported for call three, plus its result's estimate times the calibration (the server's
      // count of the request over the estimate: past its bound of 10 with these scripted numbers).
      tokensBefore: 8500 + 20 + 10 * estimateMessageTokens(messages[2]),
      tokensAfter: undefined,
      reason: "threshold",
    },
  );
  assert.ok(compaction.tokensAfter < compaction.tokensBefore / 2, `${compaction.tokensAfter}`);
  // The conversation in memory is the compacted one (the session file keeps the full history).
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "tool", "assistant"],
  );
  // The summary call's tokens count in the run's total.
  assert.equal(result.usage.input, 3000 + 6000 + 8500 + 900 + 10);
  // The summary's text is not streamed as if it were the agent's reply.
  assert.equal(events.map((e) => (e.type === "text_delta" ? e.text : "")).join(""), "done");
  // The summary call's usage event comes right before the compaction, within the same turn.
  const at = events.indexOf(compaction);
  assert.deepEqual(events[at - 1], {
    type: "usage",
    usage: { input: 900, output: 40, cacheRead: 0, cacheWrite: 0 },
    total: { input: 3000 + 6000 + 8500 + 900, output: 100, cacheRead: 0, cacheWrite: 0 },
    model: "fake-model",
  });
  assert.deepEqual(events[at - 2], { type: "turn_start", turn: 4 });
});

test("below the threshold nothing is compacted, and without `context` never", async () => {
  const { events } = await run([bashStep("echo one", 7000), { reply: { text: "done" } }], {
    context: { window: 10_000 },
  });
  assert.equal(compactions(events).length, 0);
  assert.deepEqual(server.errors, []);
  await server.close();
  const unbounded = await run([bashStep("echo one", 9_999_000), { reply: { text: "done" } }]);
  assert.equal(compactions(unbounded.events).length, 0);
  assert.equal(server.requests.length, 2);
});

test("a failed summary request leaves the conversation whole and the run goes on", async () => {
  const { events, result } = await run(
    [
      bashStep("echo one", 3000),
      bashStep("echo two", 8500),
      { status: 400, body: { error: { message: "no summaries today", type: "invalid_request_error" } } },
      { reply: { text: "done" } },
    ],
    { context: { window: 10_000 } },
  );
  assert.equal(result.reason, "stop");
  assert.equal(compactions(events).length, 0);
  assert.equal(server.requests[3].body.messages.length, 6, "system, prompt, two calls, two results");
});

test("the cut never separates a call from its result, and keeps about keepRecent tokens", () => {
  const call = (id: string): Message => ({
    role: "assistant",
    content: [{ type: "tool_call", id, name: "bash", arguments: "{}" }],
    stopReason: "tool_use",
  });
  const result = (id: string, size: number): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: "bash",
    content: "x".repeat(size),
    isError: false,
  });
  const messages: Message[] = [
    userMessage("go"),
    call("a"),
    result("a", 4000),
    call("b"),
    result("b", 4000),
    userMessage("next"),
    call("c"),
    result("c", 400),
  ];
  // ~100 tokens: only the newest call and its result (always kept, even when over).
  assert.equal(findCut(messages, 100), 6);
  assert.equal(findCut(messages, 1), 6);
  // ~1100 tokens: call b's result would not fit, and it is not split from its call: cut before "next".
  assert.equal(findCut(messages, 1100), 5);
  // ~1200 tokens: call b and its result fit.
  assert.equal(findCut(messages, 1200), 3);
  // Everything fits: only the first message is summarised.
  assert.equal(findCut(messages, 1_000_000), 1);
  for (const keep of [1, 50, 150, 1000, 1100, 2000, 3000])
    assert.notEqual(messages[findCut(messages, keep)].role, "tool");
  assert.equal(findCut([userMessage("only")], 10), 0);
});

test("Anthropic: after a compaction the request still carries cache breakpoints on tools, system and the newest message", async () => {
  const summaries: RecordedRequest[] = [];
  server = await startFakeLLM([
    {
      reply: {
        toolCalls: [{ id: "toolu_1", name: "bash", arguments: { command: "echo one" } }],
        usage: { input_tokens: 3000, output_tokens: 20 },
      },
    },
    {
      reply: {
        toolCalls: [{ id: "toolu_2", name: "bash", arguments: { command: "echo two" } }],
        usage: { input_tokens: 9000, output_tokens: 20 },
      },
    },
    summaryStep("SUMMARY: echoed one.", summaries, true),
    { reply: { text: "done" } },
  ]);
  const provider = fakeAnthropicProvider(server);
  const { result, events } = await drain(
    runAgent({
      provider,
      tools: [bash],
      system: "test system",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      retry: FAST_RETRY,
      context: { window: 10_000, keepRecent: 20 },
    }),
  );
  assert.equal(result.answer, "done");
  assert.equal(compactions(events).length, 1);
  const summary = summaries[0].body;
  assert.equal(summary.tools, undefined);
  assert.equal(systemOf(summaries[0]), SUMMARY_SYSTEM_PROMPT);

  const body = server.requests[3].body;
  assert.deepEqual(body.system, [{ type: "text", text: "test system", cache_control: CACHE }]);
  assert.deepEqual(body.tools.at(-1).cache_control, CACHE);
  // [summary (user), call two (assistant), its result (user)]: the new prefix is cached from here on.
  assert.deepEqual(
    body.messages.map((m: { role: string }) => m.role),
    ["user", "assistant", "user"],
  );
  assert.match(body.messages[0].content[0].text, /SUMMARY: echoed one\./);
  assert.deepEqual(body.messages[2].content, [
    { type: "tool_result", tool_use_id: "toolu_2", content: "two\n[exit code: 0]", cache_control: CACHE },
  ]);
  assert.deepEqual(
    body.messages[0].content.at(-1).cache_control,
    CACHE,
    "the user message before the newest one is a breakpoint too",
  );
});

test("Agent.compact: on demand, with a focus, and a failure when there is nothing old to summarise", async () => {
  const summaries: RecordedRequest[] = [];
  server = await startFakeLLM([
    bashStep("echo one", 100),
    { reply: { text: "first answer" } },
    summaryStep("SUMMARY: echoed one.", summaries),
    { reply: { text: "second answer" } },
  ]);
  const agent = new Agent({
    provider: fakeOpenAIProvider(server),
    tools: [bash],
    system: "test system",
    cwd: tempDir(),
    retry: FAST_RETRY,
  });
  await drain(agent.prompt("go"));
  assert.equal(agent.messages.length, 4);

  const compacted = await drain(agent.compact("the echo commands"));
  assert.ok(compacted.result.ok);
  assert.equal(compacted.result.event.reason, "manual");
  assert.deepEqual(
    compacted.events.map((e) => e.type),
    ["usage", "compaction"],
  );
  const [usageEvent] = compacted.events;
  assert.ok(usageEvent.type === "usage" && usageEvent.usage.output > 0);
  assert.deepEqual(compacted.result.usage, usageEvent.usage, "the result says what the summary call spent");
  assert.match(summaries[0].body.messages[1].content, /Pay particular attention to: the echo commands$/);
  // Without a window, a quarter of the current size is kept: here the newest turn, the answer.
  assert.deepEqual(
    agent.messages.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.equal(
    agent.messages[1].role === "assistant" && agent.messages[1].usage,
    undefined,
    "kept replies lose their stale usage",
  );

  const next = await drain(agent.prompt("and now?"));
  assert.equal(next.result.answer, "second answer");
  assert.deepEqual(
    server.requests[3].body.messages.map((m: { role: string }) => m.role),
    ["system", "user", "assistant", "user"],
  );

  const nothing = await drain(
    new Agent({
      provider: fakeOpenAIProvider(server),
      tools: [],
      system: "s",
      cwd: tempDir(),
      messages: [userMessage("hi")],
    }).compact(),
  );
  assert.deepEqual(nothing, {
    events: [],
    result: {
      ok: false,
      error: "there is nothing old enough to summarise (the newest turn alone fills the space kept verbatim)",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    },
  });
});

test("compactions that do not bring the next request under the threshold cut harder, then stop and say so", async () => {
  // The server counts every request at 9,900 of a 10,000-token window, compacted or not (a
  // system prompt and tools that fill the window would do it): without the check, every step compacts.
  let steps = 0;
  let summaries = 0;
  const usage = { prompt_tokens: 9900, completion_tokens: 20, total_tokens: 9920 };
  const answer: ScriptStep = (request) => {
    if (!request.body.tools) {
      summaries++;
      return { reply: { text: `SUMMARY ${summaries}`, usage } };
    }
    steps++;
    if (steps > 12) return { reply: { text: "done", usage } };
    return {
      reply: { toolCalls: [{ id: `call_${steps}`, name: "bash", arguments: { command: `seq ${steps} 1000` } }], usage },
    };
  };
  const { events, result } = await run(
    Array.from({ length: 40 }, () => answer),
    { context: { window: 10_000, keepRecent: 4000 } },
  );
  assert.equal(result.reason, "stop");
  assert.equal(result.answer, "done");
  const done = compactions(events);
  assert.equal(summaries, 3, "three compactions, then none");
  assert.equal(done.length, 3);
  // Each keeps the newest turn only (at this size the calibration already cuts that hard).
  assert.deepEqual(
    done.map((event) => [event.removedMessages, event.keptMessages]),
    [
      [1, 2],
      [3, 2],
      [3, 2],
    ],
  );
  const stopped = events.filter((e) => e.type === "compaction_stopped");
  assert.deepEqual(stopped, [
    {
      type: "compaction_stopped",
      reason:
        "after 3 compactions in a row the next request was still 9900 tokens, at or over the compaction threshold of 8000 (the last kept 2 messages and its summary); the system prompt, tools and newest turn may fill the window, or the window is set too small (--context-window)",
    },
  ]);
  // Said as soon as the reply after the third compaction showed it did not help (before that reply's message).
  const at = events.indexOf(stopped[0]);
  assert.equal(events[at - 1], done[2]);
  assert.equal(events[at + 1].type, "message");
});

test("the contract's facts: requests bounded (the first and the newest), the plans, the ledger, read back by the next compaction", () => {
  const cwd = tempDir();
  const call = (id: string, name: string, args: unknown): Message => ({
    role: "assistant",
    content: [{ type: "tool_call", id, name, arguments: JSON.stringify(args) }],
    stopReason: "tool_use",
  });
  const result = (id: string, name: string, isError = false): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: name,
    content: isError ? "failed" : "ok",
    isError,
  });
  const removed: Message[] = [
    userMessage("the task"),
    call("a", "todo", { items: [{ content: "step one", status: "in_progress" }] }),
    result("a", "todo"),
    call("b", "write_file", { path: "src/a.ts", content: "x" }),
    result("b", "write_file"),
    call("c", "read_file", { path: join(cwd, "src/a.ts") }),
    result("c", "read_file"),
    call("d", "write_file", { path: "/elsewhere/b.ts", content: "x" }),
    result("d", "write_file", true), // failed: not in the ledger
    call("p", "exit_plan_mode", { plan: '# The plan\n\n1. "quoted" step\n' }),
    result("p", "exit_plan_mode"),
    ...Array.from({ length: 8 }, (_, index) => userMessage(`${index}: ${"y".repeat(990)}`)),
  ];
  const facts = collectFacts(removed, factsOfCallWith([todo, writeFile, readFile, exitPlanMode], cwd));
  // 6000 characters: the task, then the newest six of the eight 993-character requests.
  const heads = (requests: string[]) => requests.map((request) => request.slice(0, 4));
  assert.deepEqual(heads(facts.requests), ["the ", "2: y", "3: y", "4: y", "5: y", "6: y", "7: y"]);
  assert.equal(facts.leftOutRequests, 2);
  assert.deepEqual(facts.plan, [{ content: "step one", status: "in_progress" }]);
  assert.equal(facts.proposedPlan, '# The plan\n\n1. "quoted" step\n', "plan mode's plan survives whole");
  assert.deepEqual([...facts.files], [["src/a.ts", { read: true, written: true }]]);

  // The next compaction reads them back from the note and adds its own.
  const note = renderFacts(facts);
  const next = collectFacts(
    [
      userMessage("and now the docs".padEnd(100, ".")),
      call("e", "write_file", { path: "README.md", content: "x" }),
      result("e", "write_file"),
    ],
    factsOfCallWith([writeFile], cwd),
    note,
  );
  assert.deepEqual(heads(next.requests), ["the ", "3: y", "4: y", "5: y", "6: y", "7: y", "and "]);
  assert.equal(next.leftOutRequests, 3);
  assert.deepEqual(next.plan, facts.plan);
  assert.equal(next.proposedPlan, facts.proposedPlan);
  assert.deepEqual(
    [...next.files],
    [
      ["src/a.ts", { read: true, written: true }],
      ["README.md", { read: false, written: true }],
    ],
  );
  assert.deepEqual(readFacts(renderFacts(next)), next, "what is rendered reads back the same");
});
