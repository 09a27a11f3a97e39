// `harness acp` as an editor sees it: the ACP SDK's client side talking to the built CLI in a
// child process, with the fake LLM behind it. A prompt round trip with tool calls and permission
// questions answered by the client, a cancel, and a recorded session loaded in a new process.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type ClientContext, methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { type EditorLog, withEditor } from "../support/acp-editor.ts";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { pngOf } from "../support/images.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();
/** A bound on waiting for the agent's first model request (it comes at once). */
const FIRST_REQUEST_LIMIT_MS = 30_000;

/** A working folder with one file to read. */
function workspace(): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, "existing.txt"), "already here\n");
  return cwd;
}

function fakeEnv(fake: FakeLLM, home = tempDir("harness-home-")): NodeJS.ProcessEnv {
  return cleanEnv({
    HARNESS_HOME: home,
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
}

const updatesOf = (log: EditorLog, kind: string) =>
  log.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind) as any[];
const messageText = (log: EditorLog) =>
  updatesOf(log, "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

const TOOL_TURN: ScriptStep[] = [
  {
    reply: {
      text: "Writing.",
      toolCalls: [
        { id: "call_write", name: "write_file", arguments: { path: "out.txt", content: "from the editor session" } },
        { id: "call_bash", name: "bash", arguments: { command: "touch forbidden.txt" } },
        { id: "call_read", name: "read_file", arguments: { path: "existing.txt" } },
      ],
    },
  },
  { reply: { text: "Wrote it." } },
];

test("a prompt round trip: streamed text, tool calls with status, permissions answered by the editor", async () => {
  const fake = await serve(TOOL_TURN);
  const cwd = workspace();
  let stopReason = "";
  const log = await withEditor(
    { env: fakeEnv(fake), cwd, answer: (request) => (request.toolCall.kind === "edit" ? "allow_once" : "reject_once") },
    async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      assert.equal(init.protocolVersion, PROTOCOL_VERSION);
      assert.equal(init.agentInfo?.name, "harness");
      assert.equal(init.agentCapabilities?.loadSession, true);
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      ({ stopReason } = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "write a file" }],
      }));
    },
  );
  assert.equal(log.code, 0, log.stderr);
  assert.equal(stopReason, "end_turn");
  assert.equal(messageText(log), "Writing.Wrote it.");
  assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "from the editor session");
  assert.equal(existsSync(join(cwd, "forbidden.txt")), false);

  // Edits and commands asked the editor, in call order; reading did not. Without bwrap no allow
  // rule covers a command (README, "Permissions and sandbox"), so "always" is not offered for it.
  const commandAlways = needs("bwrap") ? [] : ["allow_always"];
  assert.deepEqual(
    log.permissions.map((p) => [p.toolCall.toolCallId, p.toolCall.kind, p.options.map((o) => o.kind)]),
    [
      ["call_write", "edit", ["allow_once", "allow_always", "reject_once"]],
      ["call_bash", "execute", ["allow_once", ...commandAlways, "reject_once"]],
    ],
  );
  assert.deepEqual(log.permissions[0].toolCall.rawInput, { path: "out.txt", content: "from the editor session" });

  const calls = updatesOf(log, "tool_call");
  const callUpdates = updatesOf(log, "tool_call_update");
  const finalStatus = (id: string) =>
    [...calls, ...callUpdates].filter((u) => u.toolCallId === id && u.status).at(-1)?.status;
  assert.deepEqual(calls.map((u) => [u.toolCallId, u.status]).sort(), [
    ["call_bash", "pending"],
    ["call_read", "in_progress"],
    ["call_write", "pending"],
  ]);
  assert.equal(finalStatus("call_write"), "completed");
  assert.equal(finalStatus("call_bash"), "failed");
  assert.equal(finalStatus("call_read"), "completed");
  const readResult = callUpdates.find((u) => u.toolCallId === "call_read" && u.status === "completed");
  assert.match(readResult.content[0].content.text, /already here/);
  const refused = fake.requests[1].body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === "call_bash");
  assert.match(refused.content, /The user did not allow this tool call/);
});

test("session/cancel aborts the running turn: the prompt ends with cancelled, and the session goes on", async () => {
  const fake = await serve([{ hang: true }, { reply: { text: "after the cancel" } }]);
  const cwd = workspace();
  const reasons: string[] = [];
  const log = await withEditor({ env: fakeEnv(fake), cwd, answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    const prompt = ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "take forever" }],
    });
    const deadline = Date.now() + FIRST_REQUEST_LIMIT_MS;
    while (fake.requests.length === 0) {
      assert.ok(Date.now() < deadline, `no model request within ${FIRST_REQUEST_LIMIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await ctx.notify(methods.agent.session.cancel, { sessionId });
    reasons.push((await prompt).stopReason);
    reasons.push(
      (await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] }))
        .stopReason,
    );
  });
  assert.equal(log.code, 0, log.stderr);
  assert.deepEqual(reasons, ["cancelled", "end_turn"]);
  assert.equal(messageText(log), "after the cancel");
  assert.equal(fake.requests[1].body.messages.at(-1).content, "again");
});

test("a recorded session is loaded by id in a new process: history replayed, conversation continued; a second load of it is refused", async () => {
  const fake = await serve([...TOOL_TURN, { reply: { text: "Still remembered." } }]);
  const cwd = workspace();
  const home = tempDir("harness-home-");
  let sessionId = "";
  // "Always" where it is offered; without a sandbox a command's question offers only "once", and
  // an answer not offered is a refusal (issue 51).
  const allow = (request: { options: { optionId: string }[] }) =>
    request.options.some((option) => option.optionId === "allow_always") ? "allow_always" : "allow_once";
  await withEditor({ env: fakeEnv(fake, home), cwd, answer: allow }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] }));
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write a file" }] });
  });
  let stopReason = "";
  const log = await withEditor({ env: fakeEnv(fake, home), cwd, answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await assert.rejects(
      ctx.request(methods.agent.session.load, { sessionId: "zzzzzzzz-zzzz", cwd, mcpServers: [] }),
      /no session with id/,
    );
    await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    // Loaded twice, two writers would interleave in one file: the second load is refused, saying who holds it.
    await assert.rejects(
      ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }),
      new RegExp(`session ${sessionId} is in use by this harness \\(pid \\d+, since [^)]+\\); wait for it to end`),
    );
    ({ stopReason } = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "do you remember?" }],
    }));
  });
  assert.equal(log.code, 0, log.stderr);
  assert.equal(stopReason, "end_turn");
  assert.deepEqual(
    updatesOf(log, "user_message_chunk").map((u) => u.content.text),
    ["write a file"],
  );
  assert.equal(messageText(log), "Writing.Wrote it.Still remembered.");
  assert.deepEqual(
    updatesOf(log, "tool_call")
      .map((u) => [u.toolCallId, u.status])
      .sort(),
    [
      ["call_bash", "completed"],
      ["call_read", "completed"],
      ["call_write", "completed"],
    ],
  );
  const history = fake.requests[2].body.messages.map((m: { role: string }) => m.role);
  assert.deepEqual(history, ["system", "user", "assistant", "tool", "tool", "tool", "assistant", "user"]);
});

test("an editor session in an untrusted clone runs none of its hooks; trustedFolders in your settings lets them run", async () => {
  const fake = await serve([]);
  // The canary lives outside /tmp (the sandbox's private /tmp would hide it).
  const home = mkdtempSync("/var/tmp/harness-acp-trust-");
  onTestEnd(() => rmSync(home, { recursive: true, force: true }));
  const cwd = join(home, "clone");
  mkdirSync(join(cwd, ".harness"), { recursive: true });
  writeFileSync(
    join(cwd, ".harness", "settings.json"),
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: `echo ran >> ${join(home, "hook-runs")}` }] }] },
    }),
  );
  const harnessHome = join(home, ".harness");
  mkdirSync(harnessHome);
  const openSession = async (ctx: ClientContext) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  };
  const untrusted = await withEditor(
    { env: fakeEnv(fake, harnessHome), cwd, answer: () => "reject_once" },
    openSession,
  );
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.equal(existsSync(join(home, "hook-runs")), false);
  assert.match(
    untrusted.stderr,
    /^harness: this folder's project settings are not trusted: ignoring 1 hook from \.harness\/settings\.json; run harness here to review them, or pass --trust$/m,
  );
  writeFileSync(join(harnessHome, "settings.json"), JSON.stringify({ trustedFolders: [cwd] }));
  const trusted = await withEditor({ env: fakeEnv(fake, harnessHome), cwd, answer: () => "reject_once" }, openSession);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(readFileSync(join(home, "hook-runs"), "utf8"), "ran\n");
});

test("the todo tool's plan reaches the editor as an ACP plan update, done steps as completed", async () => {
  const items = [
    { content: "read the code", status: "done" },
    { content: "write the fix", status: "in_progress" },
    { content: "run the tests", status: "pending" },
  ];
  const fake = await serve([
    { reply: { toolCalls: [{ id: "plan", name: "todo", arguments: { items } }] } },
    { reply: { text: "planned" } },
  ]);
  const cwd = workspace();
  const log = await withEditor({ env: fakeEnv(fake), cwd, answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "plan it" }] });
  });
  assert.equal(log.code, 0, log.stderr);
  assert.deepEqual(log.permissions, [], "keeping a plan asks nobody");
  assert.deepEqual(updatesOf(log, "plan"), [
    {
      sessionUpdate: "plan",
      entries: [
        { content: "read the code", priority: "medium", status: "completed" },
        { content: "write the fix", priority: "medium", status: "in_progress" },
        { content: "run the tests", priority: "medium", status: "pending" },
      ],
    },
  ]);
});

test("an image in a prompt reaches the model in its place; one that is no picture fails the request; a loaded session replays it", async () => {
  const fake = await serve([{ reply: { text: "a small gradient" } }]);
  const cwd = workspace();
  const home = tempDir("harness-home-");
  const png = pngOf(3, 2).toString("base64");
  let sessionId = "";
  const log = await withEditor({ env: fakeEnv(fake, home), cwd, answer: () => "reject_once" }, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
    ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] }));
    await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "what is this?" },
        { type: "image", mimeType: "image/png", data: png },
        { type: "text", text: "be brief" },
      ],
    });
    await assert.rejects(
      ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "image", mimeType: "image/png", data: Buffer.from("no picture").toString("base64") }],
      }),
      /image 1 is not a PNG, JPEG, GIF or WebP image/,
    );
  });
  assert.equal(log.code, 0, log.stderr);
  assert.equal(messageText(log), "a small gradient");
  assert.equal(fake.requests.length, 1, "the refused picture was never sent");
  assert.deepEqual(fake.requests[0].body.messages.at(-1), {
    role: "user",
    content: [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      { type: "text", text: "be brief" },
    ],
  });

  const loaded = await withEditor({ env: fakeEnv(fake, home), cwd, answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  });
  assert.equal(loaded.code, 0, loaded.stderr);
  assert.deepEqual(
    updatesOf(loaded, "user_message_chunk").map((u) => u.content),
    [
      { type: "text", text: "what is this?" },
      { type: "image", mimeType: "image/png", data: png },
      { type: "text", text: "be brief" },
    ],
  );
});

test("harness acp --api responses --thinking high: the editor's sessions speak the Responses API at that level", async () => {
  const fake = await serve([{ reply: { text: "from responses" } }]);
  const cwd = workspace();
  const log = await withEditor(
    { env: fakeEnv(fake), cwd, answer: () => "reject_once", args: ["--api", "responses", "--thinking", "high"] },
    async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    },
  );
  assert.equal(log.code, 0, log.stderr);
  assert.equal(messageText(log), "from responses");
  assert.equal(fake.requests[0].path, "/v1/responses");
  assert.deepEqual(fake.requests[0].body.reasoning, { effort: "high", summary: "auto" });
});
