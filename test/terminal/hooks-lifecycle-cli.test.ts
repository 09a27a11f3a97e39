// Claude Code's Notification, PreCompact, PostToolUseFailure, SubagentStart and SubagentStop
// hooks, copied in unchanged from a `.claude/settings.json`: each fires at its point with the
// payload Claude documents (https://code.claude.com/docs/en/hooks), through the built CLI
// (headless, in a chat under tmux, and as `harness acp`) against the fake server.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction.ts";
import { type EditorLog, withEditor } from "../support/acp-editor.ts";
import { byConversation, type FakeLLM } from "../support/fake-llm/server.ts";
import {
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  runCli,
  tempDir,
  toolResultOf,
  writeJson,
} from "../support/helpers.ts";
import { taskCall, text } from "../support/subagent-steps.ts";
import { needs } from "../support/system-programs.ts";
import { openTrustedChat } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
/** A bound on a notifier's one line appearing (it takes milliseconds); only a hang reaches it. */
const NOTIFIER_LIMIT_MS = 60_000;

/** A hook script that appends its payload to `log` (one JSON line each), then runs `then`. */
function loggingHook(cwd: string, name: string, log: string, then = ""): string {
  const file = join(cwd, name);
  writeFileSync(file, `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> ${log}\n${then}\n`);
  chmodSync(file, 0o755);
  return `./${name}`;
}

const hooksOf = (event: string, matcher: string, command: string) => ({
  [event]: [{ matcher, hooks: [{ type: "command", command }] }],
});

/** One prompt from an editor over `harness acp --trust`, which says no to every permission question. */
function editorPrompt(fake: FakeLLM, cwd: string, prompt: string): Promise<EditorLog> {
  const env = cleanEnv({
    HARNESS_HOME: tempDir("harness-home-"),
    HARNESS_PROVIDER: "openai",
    HARNESS_BASE_URL: fake.baseUrl,
    HARNESS_MODEL: "fake-model",
    HARNESS_API_KEY: "test-key",
  });
  return withEditor({ env, cwd, args: ["--trust"], answer: () => "reject_once" }, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: prompt }] });
  });
}

/**
 * The notifier's lines, once there are `count` of them: the question does not wait for it
 * (wiring/approval-hooks.ts), so wait within a liveness bound; an extra line still fails the test.
 */
async function notifications(cwd: string, count = 1): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + NOTIFIER_LIMIT_MS;
  while (payloads(cwd, "notify.jsonl").length < count && Date.now() < deadline) await sleep(50);
  return payloads(cwd, "notify.jsonl");
}

function payloads(cwd: string, log: string): Record<string, unknown>[] {
  const file = join(cwd, log);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

test("PostToolUse fires for Claude's files only when a tool succeeds and PostToolUseFailure when it fails, with its error; our own files' PostToolUse still sees both", async () => {
  const cwd = tempDir("post-failure-hook-");
  writeFileSync(join(cwd, "present.txt"), "here\n");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      ...hooksOf("PostToolUse", "Read", loggingHook(cwd, "post.sh", "post.jsonl")),
      ...hooksOf(
        "PostToolUseFailure",
        "Read",
        loggingHook(
          cwd,
          "failure.sh",
          "failure.jsonl",
          `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"check the path"}}'`,
        ),
      ),
    },
  });
  writeJson(join(cwd, ".harness", "settings.json"), {
    hooks: hooksOf("PostToolUse", "read_file", loggingHook(cwd, "own.sh", "own.jsonl")),
  });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "ok", name: "read_file", arguments: { path: "present.txt" } },
          { id: "missing", name: "read_file", arguments: { path: "absent.txt" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "read both"], { cwd });
  assert.equal(result.code, 0, result.stderr);

  const post = payloads(cwd, "post.jsonl");
  assert.deepEqual(
    post.map((p) => [p.hook_event_name, p.tool_use_id, p.tool_name]),
    [["PostToolUse", "ok", "Read"]],
  );
  const [failure, ...more] = payloads(cwd, "failure.jsonl");
  assert.equal(more.length, 0);
  assert.equal(failure.hook_event_name, "PostToolUseFailure");
  assert.equal(failure.tool_name, "Read");
  assert.equal(failure.tool_use_id, "missing");
  assert.equal((failure.tool_input as { file_path: string }).file_path, join(cwd, "absent.txt"));
  assert.equal(failure.is_interrupt, false);
  assert.equal(failure.cwd, cwd);
  assert.match(String(failure.error), /absent\.txt/);
  assert.equal(failure.error, toolResultOf(fake, 1, "missing").split("\n[")[0]);
  assert.match(toolResultOf(fake, 1, "missing"), /\[check the path\]$/);
  assert.doesNotMatch(toolResultOf(fake, 1, "ok"), /check the path/);

  // Our own format keeps its PostToolUse on every call, with isError (README, Hooks). Reads run
  // side by side, so in either order.
  const own = payloads(cwd, "own.jsonl").map((p) => [
    p.tool_use_id,
    p.tool_name,
    (p.tool_response as { isError: boolean }).isError,
  ]);
  assert.deepEqual(own.sort(), [
    ["missing", "read_file", true],
    ["ok", "read_file", false],
  ]);
});

/** A run whose second request passes the 80% threshold of a 10,000-token window, so the conversation is compacted before it. */
async function compactingRun(cwd: string): Promise<{ fake: FakeLLM; events: Record<string, unknown>[] }> {
  const bash = (id: string, command: string, promptTokens: number) => ({
    reply: {
      toolCalls: [{ id, name: "bash", arguments: { command } }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
    },
  });
  const fake = await serve([
    bash("one", "echo one", 3000),
    bash("two", "echo two", 8500),
    (request) =>
      request.body.messages[0].content === SUMMARY_SYSTEM_PROMPT
        ? { reply: { text: "SUMMARY: echoed one and two." } }
        : { reply: { text: "went on uncompacted" } },
    { reply: { text: "finished" } },
  ]);
  const flags = ["--trust", ...fakeFlags(fake), "--context-window", "10000", "-y", "--output", "stream-json"];
  const result = await runCli([...flags, "-p", "echo things"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  return { fake, events };
}

test("PreCompact fires before an automatic compaction with trigger auto; its plain output joins the summary's instructions", async () => {
  const cwd = tempDir("pre-compact-hook-");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: hooksOf("PreCompact", "auto", loggingHook(cwd, "compact.sh", "compact.jsonl", "echo keep the port number")),
  });
  const { fake, events } = await compactingRun(cwd);
  const [payload, ...more] = payloads(cwd, "compact.jsonl");
  assert.equal(more.length, 0);
  assert.deepEqual(
    { ...payload, session_id: typeof payload.session_id },
    { session_id: "string", cwd, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" },
  );
  assert.equal(events.filter((event) => event.type === "compaction").length, 1);
  const summaryAsk = JSON.stringify(fake.requests[2].body.messages);
  assert.match(summaryAsk, /Pay particular attention to: keep the port number/);
});

test("a PreCompact hook that exits 2 cancels the automatic compaction: the run goes on uncompacted", async () => {
  const cwd = tempDir("pre-compact-block-");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: hooksOf("PreCompact", "", loggingHook(cwd, "refuse.sh", "compact.jsonl", "echo not now >&2; exit 2")),
  });
  const { fake, events } = await compactingRun(cwd);
  assert.equal(payloads(cwd, "compact.jsonl").length, 1);
  assert.equal(events.filter((event) => event.type === "compaction").length, 0);
  assert.equal(fake.requests.length, 3);
  assert.notEqual(fake.requests[2].body.messages[0].content, SUMMARY_SYSTEM_PROMPT);
  assert.equal(events.at(-1)?.answer, "went on uncompacted");
});

test("Notification and PermissionRequest never fire headless: nobody is asked, so no question is put (the refused call says so)", async () => {
  const cwd = tempDir("notification-headless-");
  const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      ...hooksOf("Notification", "", loggingHook(cwd, "notify.sh", "notify.jsonl")),
      ...hooksOf("PermissionRequest", "", loggingHook(cwd, "answer.sh", "notify.jsonl", allow)),
    },
  });
  const fake = await serve([
    { reply: { toolCalls: [{ id: "touch", name: "bash", arguments: { command: "touch asked.txt" } }] } },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "touch it"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResultOf(fake, 1, "touch"), /no one was there to approve it/);
  assert.equal(existsSync(join(cwd, "notify.jsonl")), false);
});

test("Notification fires with notification_type permission_prompt when an editor is asked for permission; its output reaches neither the model nor the editor", async () => {
  const cwd = tempDir("notification-acp-");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: hooksOf(
      "Notification",
      "permission_prompt",
      loggingHook(cwd, "notify.sh", "notify.jsonl", "echo notifier-output-canary"),
    ),
  });
  const fake = await serve([
    { reply: { toolCalls: [{ id: "touch", name: "bash", arguments: { command: "touch asked.txt" } }] } },
    { reply: { text: "done" } },
  ]);
  const log = await editorPrompt(fake, cwd, "touch it");
  assert.equal(log.code, 0, log.stderr);
  assert.equal(log.permissions.length, 1);
  assert.deepEqual(
    (await notifications(cwd)).map((p) => ({ ...p, session_id: typeof p.session_id })),
    [
      {
        session_id: "string",
        cwd,
        hook_event_name: "Notification",
        message: "harness needs your permission: bash> touch asked.txt",
        notification_type: "permission_prompt",
      },
    ],
  );
  assert.doesNotMatch(JSON.stringify(fake.requests[1].body), /notifier-output-canary/);
  assert.doesNotMatch(JSON.stringify(log.updates), /notifier-output-canary/);
});

test("SubagentStart and SubagentStop fire around a task child, matched by agent_type; the start hook's additionalContext reaches the child", async () => {
  const cwd = tempDir("subagent-hooks-");
  const context = `echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"from the start hook"}}'`;
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      ...hooksOf("SubagentStart", "general-purpose", loggingHook(cwd, "start.sh", "subagents.jsonl", context)),
      // A named agent's type is its name: the first group matches no child here.
      SubagentStop: [
        { matcher: "reviewer", hooks: [{ type: "command", command: "touch wrong-matcher" }] },
        { hooks: [{ type: "command", command: loggingHook(cwd, "stop.sh", "subagents.jsonl") }] },
      ],
    },
  });
  const fake = await serve(
    byConversation({
      "delegate it": [
        { reply: { toolCalls: [taskCall("call_task", { prompt: "CHILD-KEY look around" })] } },
        text("parent done"),
      ],
      "CHILD-KEY": [text("child answer")],
    }),
  );
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "delegate it"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "parent done\n");
  const [start, stop, ...more] = payloads(cwd, "subagents.jsonl");
  assert.equal(more.length, 0);
  assert.deepEqual(
    { ...start, session_id: typeof start.session_id, agent_id: typeof start.agent_id },
    { session_id: "string", cwd, hook_event_name: "SubagentStart", agent_id: "string", agent_type: "general-purpose" },
  );
  assert.deepEqual(stop, {
    session_id: start.session_id,
    cwd,
    hook_event_name: "SubagentStop",
    stop_hook_active: false,
    agent_id: start.agent_id,
    agent_type: "general-purpose",
    last_assistant_message: "child answer",
  });
  assert.notEqual(start.agent_id, start.session_id, "the child's id is its own session's, not the parent's");
  assert.equal(existsSync(join(cwd, "wrong-matcher")), false);
  const child = fake.requests.find((request) => JSON.stringify(request.body.messages).includes("CHILD-KEY"));
  assert.match(
    JSON.stringify(child?.body.messages),
    /CHILD-KEY look around\\n\\n<subagent-start-hook>\\nfrom the start hook\\n<\/subagent-start-hook>/,
  );
});

test("in a chat, a permission question fires Notification, and /compact fires PreCompact with trigger manual and its focus; a PreCompact exit 2 keeps the conversation as it was", {
  skip: needs("tmux"),
}, async () => {
  const cwd = tempDir("chat-hooks-");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      ...hooksOf("Notification", "", loggingHook(cwd, "notify.sh", "notify.jsonl")),
      ...hooksOf("PreCompact", "manual", loggingHook(cwd, "compact.sh", "compact.jsonl", "echo not now >&2; exit 2")),
    },
  });
  const fake = await serve([
    { reply: { toolCalls: [{ id: "touch", name: "bash", arguments: { command: "touch answered" } }] } },
    { reply: { text: "Made it." } },
    { reply: { text: "Hello again." } },
  ]);
  const terminal = await openTrustedChat(fake, cwd);
  terminal.type("touch it");
  terminal.send(["Enter"]);
  await terminal.waitFor(/allow\? bash> touch answered/, "the question");
  const [notified] = await notifications(cwd);
  assert.equal(notified.message, "harness needs your permission: bash> touch answered");
  assert.equal(notified.notification_type, "permission_prompt");
  terminal.type("y");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Made it\./, "the reply");
  terminal.type("hello");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Hello again\./, "the second reply");

  terminal.type("/compact keep the port");
  terminal.send(["Enter"]);
  await terminal.waitFor(/nothing was compacted: a PreCompact hook blocked it: not now/, "the refusal");
  const [compact, ...more] = payloads(cwd, "compact.jsonl");
  assert.equal(more.length, 0);
  assert.equal(compact.trigger, "manual");
  assert.equal(compact.custom_instructions, "keep the port");
  assert.equal(fake.requests.length, 3, "no summary was asked for");
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
  assert.equal(payloads(cwd, "notify.jsonl").length, 1, "one question, one notification");
});

// Needs bwrap: without a sandbox every command's question carries that reason, and a question with
// a reason is never one a PermissionRequest hook may answer.
test("a PermissionRequest hook answers an editor's ordinary questions (allow runs it unasked, deny sends its message to the model) but never one an ask rule or a protected path puts, which goes to the editor", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir("permission-request-");
  const answer = [
    'case "$input" in',
    `  *deny-me*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not that one"}}}' ;;`,
    `  *) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ;;`,
    "esac",
  ].join("\n");
  writeJson(join(cwd, ".claude", "settings.json"), {
    permissions: { ask: ["Bash(touch guarded:*)"] },
    hooks: {
      ...hooksOf("PermissionRequest", "Bash|Write", loggingHook(cwd, "answer.sh", "requests.jsonl", answer)),
      ...hooksOf("Notification", "", loggingHook(cwd, "notify.sh", "notify.jsonl")),
    },
  });
  const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command } });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          bash("ordinary", "touch by-hook"),
          bash("denied", "touch deny-me"),
          bash("guarded", "touch guarded extra"),
          { id: "protected", name: "write_file", arguments: { path: ".claude/settings.local.json", content: "{}" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const log = await editorPrompt(fake, cwd, "touch them");
  assert.equal(log.code, 0, log.stderr);
  assert.equal(existsSync(join(cwd, "by-hook")), true, toolResultOf(fake, 1, "ordinary"));
  assert.equal(existsSync(join(cwd, "deny-me")), false);
  assert.match(toolResultOf(fake, 1, "denied"), /not that one/);
  // The ask rule's and the protected path's questions went to the editor, which said no; the hook's allow answered neither.
  assert.deepEqual(
    log.permissions.map((p) => p.toolCall.toolCallId),
    ["guarded", "protected"],
  );
  assert.equal(existsSync(join(cwd, ".claude", "settings.local.json")), false);
  assert.equal(existsSync(join(cwd, "guarded")), false);
  assert.match(
    log.stderr,
    /a PermissionRequest hook allowed "bash> touch guarded extra", which only you can allow here/,
  );
  const requests = payloads(cwd, "requests.jsonl");
  assert.deepEqual(
    requests.map((p) => [p.hook_event_name, p.tool_name, (p.tool_input as { command: string }).command]).sort(),
    [
      ["PermissionRequest", "Bash", "touch by-hook"],
      ["PermissionRequest", "Bash", "touch deny-me"],
      ["PermissionRequest", "Bash", "touch guarded extra"],
      ["PermissionRequest", "Write", undefined],
    ],
  );
  // Only the questions that were put notified.
  assert.deepEqual(
    (await notifications(cwd, 2)).map((p) => p.message).sort(), // notifiers run side by side with the questions
    [
      "harness needs your permission: bash> touch guarded extra",
      "harness needs your permission: write .claude/settings.local.json",
    ],
  );
});
