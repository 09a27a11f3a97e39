// Subagents (the task tool) through the built CLI against the fake server: children run in
// parallel, each on its own conversation (the fake server tells them apart by their first user
// message), with only the tools they were given, linked sub-sessions, stream-json events that
// name the parent's call, named agents in both formats, the nesting limit, and an interrupt that
// stops them all.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { formatSpent, sessionPrices } from "../../src/providers/pricing.ts";
import { readSession } from "../../src/session/session-reader.ts";
import { formatCost } from "../../src/shared/helpers.ts";
import { byConversation, type FakeLLM, type RecordedRequest, type ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";
import { arrival, taskCall, text } from "../support/subagent-steps.ts";

const serve = fakeServerPerTest();

/** Every session file under this HARNESS_HOME: header and entries. */
function sessionsOf(env: NodeJS.ProcessEnv): Array<{ header: any; entries: any[] }> {
  const dir = join(env.HARNESS_HOME as string, "sessions");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => {
      const [header, ...entries] = readFileSync(join(dir, name), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      return { header, entries };
    });
}

/** The requests of the conversation whose first user message contains `key`. */
function requestsOf(fake: FakeLLM, key: string): RecordedRequest[] {
  return fake.requests.filter((request) => {
    const messages: Array<{ role: string }> = request.body.messages;
    return JSON.stringify(messages.find((message) => message.role === "user")).includes(key);
  });
}

const toolNames = (request: RecordedRequest) =>
  request.body.tools.map((tool: { function: { name: string } }) => tool.function.name);

const streamEvents = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

test("two task calls in one reply run two subagents at once, each a linked session whose events name the call", async () => {
  // Each child answers only once the other has asked: they must be running at the same time.
  const alpha = arrival("the ALPHA subagent's request");
  const beta = arrival("the BETA subagent's request");
  const meet = (mine: typeof alpha, other: typeof alpha, answer: string): ScriptStep => {
    return async () => {
      mine.arrive();
      await other.arrived;
      return text(answer);
    };
  };
  const fake = await serve(
    byConversation({
      "PARENT:": [
        {
          reply: {
            toolCalls: [
              taskCall("call_a", { prompt: "ALPHA: count the files" }),
              taskCall("call_b", { prompt: "BETA: read the readme" }),
            ],
          },
        },
        text("Both are done."),
        text("Still here."),
      ],
      "ALPHA:": [meet(alpha, beta, "alpha counted 3 files")],
      "BETA:": [meet(beta, alpha, "beta read it")],
    }),
  );
  const env = cleanEnv();
  const cwd = tempDir();
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "PARENT: split the work"], {
    cwd,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const events = streamEvents(result.stdout);
  const isEvent = new Ajv2020({ strict: false }).compile(
    JSON.parse(readFileSync(join(ROOT, "docs", "events.schema.json"), "utf8")),
  );
  for (const event of events) assert.ok(isEvent(event), `${JSON.stringify(event)}: ${JSON.stringify(isEvent.errors)}`);

  // What the parent's model got back: each child's answer and usage, as that call's result.
  const results = requestsOf(fake, "PARENT:")[1].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.deepEqual(
    results.map((m: { tool_call_id: string }) => m.tool_call_id),
    ["call_a", "call_b"],
  );
  assert.match(results[0].content, /^alpha counted 3 files\n\n\[subagent task: 1 turn, .* in, .* out; session \S+\]$/);
  assert.match(results[1].content, /^beta read it\n\n\[subagent task: 1 turn/);
  // The children's tokens are the run's too: the parent's own 2 calls and one call each (10 in, 5 out apiece).
  const done = events.at(-1);
  assert.equal(done.type, "done");
  assert.deepEqual([done.usage.input, done.usage.output], [40, 20]);

  // A child starts fresh: its own prompt, the read-only tools, told it is a subagent.
  for (const key of ["ALPHA:", "BETA:"]) {
    const [request] = requestsOf(fake, key);
    assert.deepEqual(toolNames(request), ["read_file", "list_files", "grep", "glob"]);
    assert.equal(request.body.messages.length, 2, "system prompt and the task, nothing of the parent's");
    assert.match(request.body.messages[0].content, /You are a subagent/);
  }

  // Sessions: the parent's file links each child's; each child's header names the parent and the call.
  const sessions = sessionsOf(env);
  assert.equal(sessions.length, 3);
  const parent = sessions.find((session) => !session.header.parent);
  assert.ok(parent);
  const links = parent.entries.filter((entry) => entry.type === "subagent");
  assert.deepEqual(links.map((link) => link.toolCallId).sort(), ["call_a", "call_b"]);
  for (const link of links) {
    const child = sessions.find((session) => session.header.id === link.sessionId);
    assert.ok(child, `the child session ${link.sessionId} exists`);
    assert.deepEqual(child.header.parent, { sessionId: parent.header.id, toolCallId: link.toolCallId });
    const answer = link.toolCallId === "call_a" ? "alpha counted 3 files" : "beta read it";
    assert.ok(
      child.entries.some((entry) => entry.type === "message" && JSON.stringify(entry.message).includes(answer)),
      "the child's own file holds its conversation",
    );
    // stream-json: the child's run, start to done, wrapped with the parent's call id.
    const own = events.filter((event) => event.type === "subagent" && event.parentToolCallId === link.toolCallId);
    assert.deepEqual(own[0].event, {
      type: "start",
      schemaVersion: 1,
      provider: "openai",
      model: "fake-model",
      sessionId: link.sessionId,
    });
    assert.equal(own.at(-1).event.type, "done");
    assert.equal(own.at(-1).event.answer, answer);
    assert.equal(own.at(-1).agent, "task");
  }

  // -c continues the parent's conversation, not a child's (theirs are written later).
  const again = await runCli([...fakeFlags(fake), "-c", "-p", "and then?"], { cwd, env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "Still here.\n");
});

test("a subagent asking for a tool it was not given gets an error naming its tools, and nothing runs", async () => {
  const fake = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_g", { prompt: "GAMMA: look only", tools: ["read_file"] })] } },
        text("ok"),
      ],
      "GAMMA:": [
        { reply: { toolCalls: [{ id: "sneak", name: "bash", arguments: { command: "touch marker" } }] } },
        text("I could not run bash."),
      ],
    }),
  );
  const cwd = tempDir();
  // --yes: bash would be approved; only the child's tool list stops it.
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "PARENT: look"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const [first, second] = requestsOf(fake, "GAMMA:");
  assert.deepEqual(toolNames(first), ["read_file"]);
  const refusal = second.body.messages.find((m: { role: string }) => m.role === "tool");
  assert.equal(refusal.tool_call_id, "sneak");
  assert.equal(refusal.content, 'Error: there is no tool named "bash". Available tools: read_file.');
  assert.equal(existsSync(join(cwd, "marker")), false, "bash never ran");
});

test("SIGINT while a subagent waits on the model stops it and the parent: exit 130, both sessions say interrupted", async () => {
  const asked = arrival("the EPSILON subagent's request");
  const fake = await serve(
    byConversation({
      "PARENT:": [
        {
          reply: {
            toolCalls: [
              taskCall("call_d", { prompt: "DELTA: quick one" }),
              taskCall("call_e", { prompt: "EPSILON: slow one" }),
            ],
          },
        },
      ],
      "DELTA:": [text("delta is quick")],
      "EPSILON:": [
        () => {
          asked.arrive();
          return { hang: true };
        },
      ],
    }),
  );
  const env = cleanEnv();
  const started = Date.now();
  const result = await runCli([...fakeFlags(fake), "-p", "PARENT: two things"], {
    env,
    onSpawn: (child) =>
      void asked.arrived.then(
        () => child.kill("SIGINT"),
        () => child.kill("SIGKILL"),
      ),
  });
  assert.equal(result.code, 130, result.stderr);
  assert.ok(Date.now() - started < 120_000, "the run ended"); // a liveness bound only
  const sessions = sessionsOf(env);
  const slow = sessions.find((session) => session.header.parent?.toolCallId === "call_e");
  assert.ok(slow, "the interrupted child has its session");
  assert.equal(slow.entries.at(-1).type, "interrupted");
  const parent = sessions.find((session) => !session.header.parent);
  assert.equal(parent?.entries.at(-1).type, "interrupted");
  const tool = parent?.entries.find(
    (entry) => entry.type === "message" && entry.message.role === "tool" && entry.message.toolCallId === "call_e",
  );
  assert.match(tool.message.content, /^The subagent was interrupted\./);
});

test("named agents from .harness/agents and .claude/agents are listed in the task tool and run by name", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".git"));
  mkdirSync(join(cwd, ".harness", "agents"), { recursive: true });
  mkdirSync(join(cwd, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(cwd, ".harness", "agents", "reviewer.md"),
    "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: read_file, grep\nmodel: inherit\n---\nYou are REVIEWER-BODY.\n",
  );
  // Claude Code's shape: its tool names, one of its model aliases (the parent's model here).
  writeFileSync(
    join(cwd, ".claude", "agents", "scout.md"),
    "---\nname: scout\ndescription: Finds where things are\ntools: Read, Glob\nmodel: haiku\n---\nYou are SCOUT-BODY.\n",
  );
  const fake = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_z", { agent: "scout", prompt: "ZETA: where is main?" })] } },
        { reply: { toolCalls: [taskCall("call_n", { agent: "nobody", prompt: "NU: anything" })] } },
        text("main is in src/main.ts"),
      ],
      "ZETA:": [text("in src/main.ts")],
    }),
  );
  const result = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "PARENT: find main"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const [parentFirst, parentSecond, parentThird] = requestsOf(fake, "PARENT:");
  const task = parentFirst.body.tools.find((tool: { function: { name: string } }) => tool.function.name === "task");
  assert.match(
    task.function.description,
    /Named agents:\n- reviewer: Reviews a change for bugs\n- scout: Finds where things are$/,
  );
  const [child] = requestsOf(fake, "ZETA:");
  assert.deepEqual(toolNames(child), ["read_file", "glob"]);
  assert.match(child.body.messages[0].content, /You are SCOUT-BODY\.$/);
  assert.doesNotMatch(child.body.messages[0].content, /REVIEWER-BODY/);
  assert.equal(child.body.model, "fake-model");
  const resultOf = (request: RecordedRequest) =>
    request.body.messages.findLast((m: { role: string }) => m.role === "tool").content;
  assert.match(resultOf(parentSecond), /^in src\/main\.ts\n\n\[subagent scout: 1 turn/);
  assert.equal(resultOf(parentThird), 'Error: there is no agent named "nobody" (named agents: reviewer, scout)');
  const wrapped = streamEvents(result.stdout).filter((event) => event.type === "subagent");
  assert.ok(
    wrapped.length > 0 && wrapped.every((event) => event.agent === "scout" && event.parentToolCallId === "call_z"),
  );
});

test("subagents cannot start their own unless maxSubagentDepth allows it; then the grandchild links to the child", async () => {
  const fake = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_x", { prompt: "ETA: go deeper", tools: ["read_file", "task"] })] } },
        { reply: { toolCalls: [taskCall("call_t", { prompt: "THETA: try anyway" })] } },
        text("limits hold"),
      ],
      "THETA:": [
        { reply: { toolCalls: [taskCall("call_i", { prompt: "IOTA: nested" })] } },
        text("I cannot start subagents."),
      ],
    }),
  );
  const result = await runCli([...fakeFlags(fake), "-p", "PARENT: nest"]);
  assert.equal(result.code, 0, result.stderr);
  const [, second] = requestsOf(fake, "PARENT:");
  assert.equal(
    second.body.messages.at(-1).content,
    "Error: a subagent cannot start subagents of its own: 1 level is allowed (config.json maxSubagentDepth)",
  );
  const [theta, thetaSecond] = requestsOf(fake, "THETA:");
  assert.ok(!toolNames(theta).includes("task"), "the child is not offered the task tool");
  assert.match(thetaSecond.body.messages.at(-1).content, /^Error: there is no tool named "task"/);

  // Two levels allowed: the child is given the task tool and its own child runs.
  const deeper = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_k", { prompt: "KAPPA: delegate", tools: ["task"] })] } },
        text("fin"),
      ],
      "KAPPA:": [{ reply: { toolCalls: [taskCall("call_l", { prompt: "LAMBDA: leaf" })] } }, text("kappa done")],
      "LAMBDA:": [text("leaf answer")],
    }),
  );
  const env = cleanEnv();
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify({ maxSubagentDepth: 2 }));
  const nested = await runCli([...fakeFlags(deeper), "--output", "stream-json", "-p", "PARENT: nest"], { env });
  assert.equal(nested.code, 0, nested.stderr);
  assert.deepEqual(toolNames(requestsOf(deeper, "KAPPA:")[0]), ["task"]);
  assert.deepEqual(toolNames(requestsOf(deeper, "LAMBDA:")[0]), ["read_file", "list_files", "grep", "glob"]);
  assert.match(requestsOf(deeper, "KAPPA:")[1].body.messages.at(-1).content, /^leaf answer\n\n\[subagent task/);
  const sessions = sessionsOf(env);
  const child = sessions.find((session) => session.header.parent?.toolCallId === "call_k");
  const grandchild = sessions.find((session) => session.header.parent?.toolCallId === "call_l");
  assert.equal(grandchild?.header.parent.sessionId, child?.header.id);
  const linksIn = (session: (typeof sessions)[number] | undefined) =>
    session?.entries.filter((entry) => entry.type === "subagent").map((entry) => entry.toolCallId);
  assert.deepEqual(linksIn(child), ["call_l"]);
  assert.deepEqual(linksIn(sessions.find((session) => !session.header.parent)), ["call_k"]);
  // The grandchild's events come through once, naming the child's call.
  const leafDone = streamEvents(nested.stdout).filter(
    (event) => event.type === "subagent" && event.event.type === "done" && event.event.answer === "leaf answer",
  );
  assert.deepEqual(
    leafDone.map((event) => event.parentToolCallId),
    ["call_l"],
  );

  // The HTML export nests each subagent's transcript, folded, in its place: the grandchild inside the child.
  const parentId = sessions.find((session) => !session.header.parent)!.header.id;
  const page = await runCli(["export", parentId, "-o", "-"], { env });
  assert.equal(page.code, 0, page.stderr);
  const nestedPage =
    /<details class="subagent">[\s\S]*<details class="subagent">[\s\S]*<p>leaf answer<\/p>[\s\S]*<\/details>[\s\S]*<p>kappa done<\/p>[\s\S]*<\/details>/;
  assert.match(page.stdout, nestedPage);
  const markdown = await runCli(["export", parentId, "--md"], { env });
  assert.match(markdown.stdout, new RegExp(`subagent task ran as session ${child!.header.id}`));
});

test("a named agent on another model is priced at that model: its usage event names it, the cost and the session count it so", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".git"));
  mkdirSync(join(cwd, ".harness", "agents"), { recursive: true });
  writeFileSync(
    join(cwd, ".harness", "agents", "cheap.md"),
    "---\nname: cheap\ndescription: Does small things\nmodel: gpt-4o-mini\n---\nBe brief.\n",
  );
  const fake = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_m", { agent: "cheap", prompt: "MU: count to three" })] } },
        text("counted"),
      ],
      "MU:": [
        { reply: { text: "one two three", usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 } } },
      ],
    }),
  );
  const env = cleanEnv();
  // The parent on gpt-4.1 ($2 in, $8 out per million; 10 in, 5 out per call), the child on gpt-4o-mini ($0.15, $0.60; 100 in, 50 out).
  const flags = ["--provider", "openai", "--base-url", fake.baseUrl, "--model", "gpt-4.1"];
  const result = await runCli([...flags, "--output", "stream-json", "-p", "PARENT: count"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requestsOf(fake, "MU:")[0].body.model, "gpt-4o-mini");
  const events = streamEvents(result.stdout);
  const usage = events.filter((event) => event.type === "usage");
  assert.deepEqual(
    usage.map((event) => [event.model, event.usage.input, event.usage.output]),
    [
      ["gpt-4.1", 10, 5],
      ["gpt-4o-mini", 100, 50],
      ["gpt-4.1", 10, 5],
    ],
  );
  const done = events.at(-1);
  // 2 × (10 × 2 + 5 × 8) + (100 × 0.15 + 50 × 0.6) micro-dollars; all three calls at gpt-4.1 would be 720.
  assert.equal(done.cost, 0.000165);

  // The session file keeps each model's tokens apart, so /cost after a resume prices them the same way.
  const parent = sessionsOf(env).find((session) => !session.header.parent);
  assert.deepEqual(
    parent?.entries.filter((entry) => entry.type === "usage").map((entry) => entry.model),
    ["gpt-4.1", "gpt-4o-mini", "gpt-4.1"],
  );
  const spent = readSession(join(env.HARNESS_HOME as string, "sessions", `${parent?.header.id}.jsonl`)).spent;
  assert.deepEqual(spent, [
    { model: "gpt-4.1", usage: { input: 20, output: 10, cacheRead: 0, cacheWrite: 0 } },
    { model: "gpt-4o-mini", usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0 } },
  ]);
  assert.equal(
    formatSpent(spent, sessionPrices({ model: "gpt-4.1" })),
    `tokens: 120 in · 60 out · ${formatCost(0.000165)}`,
  );
});
