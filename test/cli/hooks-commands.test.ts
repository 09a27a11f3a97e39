// Command hooks from settings.json, through the built CLI: a hook that blocks, one that rewrites
// arguments, one that hangs and is killed, and the session-level points. A project's hooks run
// with --trust here; folder-trust-cli.test.ts covers what happens without it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, shellScript, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

function settings(dir: string, hooks: unknown): void {
  mkdirSync(dir, { recursive: true });
  // Other keys in the same file belong to other modules and must not disturb the hooks.
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(ls:*)"] }, hooks }));
}

const toolResult = (fake: FakeLLM, request: number, id: string) =>
  fake.requests[request].body.messages.find(
    (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === id,
  )?.content as string;

test("a PreToolUse hook that exits 2 blocks the call; its stderr reaches the model; it got the event on stdin", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "touch should-not-exist" } }] } },
    { reply: { text: "blocked, fine" } },
  ]);
  const cwd = tempDir();
  shellScript(cwd, "block.sh", 'cat > pre-input.json\necho "touching files is not allowed here" >&2\nexit 2');
  settings(join(cwd, ".harness"), {
    PreToolUse: [{ matcher: "bash|write_file", hooks: [{ type: "command", command: "./block.sh" }] }],
  });
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "make a file"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "blocked, fine\n");
  assert.equal(existsSync(join(cwd, "should-not-exist")), false);
  assert.equal(
    toolResult(fake, 1, "call_1"),
    "The bash call was blocked by a hook: touching files is not allowed here",
  );
  const event = JSON.parse(readFileSync(join(cwd, "pre-input.json"), "utf8"));
  assert.deepEqual(
    { ...event, session_id: undefined },
    {
      session_id: undefined,
      cwd,
      hook_event_name: "PreToolUse",
      tool_name: "bash",
      tool_input: { command: "touch should-not-exist" },
      tool_use_id: "call_1",
    },
  );
});

test("PreToolUse hooks rewrite arguments (Claude Code's and the short shape); rewritten arguments are validated again", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "call_w", name: "write_file", arguments: { path: "original.txt", content: "from the model" } },
          { id: "call_b", name: "bash", arguments: { command: "echo original" } },
          { id: "call_bad", name: "bash", arguments: { command: "echo bad" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  shellScript(
    home,
    "rewrite-write.sh",
    'cat >/dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"path":"rewritten.txt","content":"from the hook"}}}\'',
  );
  shellScript(
    home,
    "rewrite-bash.sh",
    'input=$(cat)\ncase "$input" in\n  *bad*) echo \'{"updatedInput":{"command":42}}\' ;;\n  *) echo \'{"updatedInput":{"command":"echo rewritten"}}\' ;;\nesac',
  );
  settings(home, {
    PreToolUse: [
      { matcher: "write_file", hooks: [{ type: "command", command: join(home, "rewrite-write.sh") }] },
      { matcher: "bash", hooks: [{ type: "command", command: join(home, "rewrite-bash.sh") }] },
    ],
  });
  const result = await runCli(["-y", ...fakeFlags(fake), "--output", "stream-json", "-p", "write"], {
    cwd,
    env: cleanEnv({ HARNESS_HOME: home }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(cwd, "rewritten.txt"), "utf8"), "from the hook");
  assert.equal(existsSync(join(cwd, "original.txt")), false);
  assert.match(toolResult(fake, 1, "call_b"), /^rewritten\n/);
  assert.match(
    toolResult(fake, 1, "call_bad"),
    /^Error: a hook rewrote the bash arguments into ones its schema rejects:[\s\S]*command[\s\S]*Nothing was run\.$/,
  );
  const starts = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === "tool_start");
  assert.deepEqual(
    new Map(starts.map((e) => [e.id, JSON.parse(e.arguments)])),
    new Map([
      ["call_w", { path: "rewritten.txt", content: "from the hook" }],
      ["call_b", { command: "echo rewritten" }],
    ]),
  );
});

test("a hook that hangs is killed at its timeout and the call goes ahead with a note; PostToolUse, SessionStart and Stop get their events", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "echo ran" } }] } },
    { reply: { text: "finished" } },
  ]);
  const cwd = tempDir();
  shellScript(cwd, "record.sh", 'cat > "$1.json"');
  shellScript(cwd, "post.sh", 'cat > post.json\necho "remember to run the tests" >&2\nexit 2');
  settings(join(cwd, ".harness"), {
    PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] }],
    PostToolUse: [{ hooks: [{ type: "command", command: "./post.sh" }] }],
    SessionStart: [
      { matcher: "startup", hooks: [{ type: "command", command: "./record.sh start" }] },
      // What SessionStart hooks print reaches the model, as plain text or as additionalContext.
      { matcher: "startup", hooks: [{ type: "command", command: "echo Branch: main, 2 files changed" }] },
      {
        hooks: [
          {
            type: "command",
            command: `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Tickets: ABC-1"}}'`,
          },
        ],
      },
      { matcher: "resume", hooks: [{ type: "command", command: "./record.sh never" }] },
    ],
    Stop: [{ hooks: [{ type: "command", command: "./record.sh stop" }] }],
    TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
  });
  const env = cleanEnv();
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "run it"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "finished\n");
  assert.match(result.stderr, /ignoring hooks\.TeammateIdle/);
  // The session list shows the person's words; the hooks' context is not their prompt.
  const listed = await runCli(["sessions"], { cwd, env });
  assert.match(listed.stdout, /1 turn {2}run it\n/);
  assert.doesNotMatch(listed.stdout, /Branch|Tickets|hook/);
  assert.match(
    result.stderr,
    /PreToolUse hook "sleep 30" \(.*settings\.json\) timed out after 1 s and was killed; the call went on to its approval/,
  );
  const content = toolResult(fake, 1, "call_1");
  assert.match(content, /^ran\n/);
  assert.match(
    content,
    /\[PreToolUse hook "sleep 30" .* timed out after 1 s and was killed; the call went on to its approval\]/,
  );
  assert.match(content, /\[PostToolUse hook: remember to run the tests\]$/);
  const post = JSON.parse(readFileSync(join(cwd, "post.json"), "utf8"));
  assert.equal(post.hook_event_name, "PostToolUse");
  assert.deepEqual(post.tool_input, { command: "echo ran" });
  assert.match(post.tool_response.content, /^ran\n/);
  assert.equal(post.tool_response.isError, false);
  const start = JSON.parse(readFileSync(join(cwd, "start.json"), "utf8"));
  assert.deepEqual(
    { ...start, session_id: undefined },
    { session_id: undefined, cwd, hook_event_name: "SessionStart", source: "startup" },
  );
  const stop = JSON.parse(readFileSync(join(cwd, "stop.json"), "utf8"));
  assert.deepEqual(
    { ...stop, session_id: undefined },
    { session_id: undefined, cwd, hook_event_name: "Stop", stop_hook_active: false, reason: "stop" },
  );
  assert.equal(typeof start.session_id, "string");
  assert.equal(start.session_id, stop.session_id);
  assert.equal(existsSync(join(cwd, "never.json")), false);
  const sent = JSON.stringify(fake.requests[1].body);
  assert.match(
    sent,
    /run it\\n\\n<session-start-hook>\\nBranch: main, 2 files changed\\n<\/session-start-hook>\\n\\n<session-start-hook>\\nTickets: ABC-1\\n<\/session-start-hook>/,
  );
  assert.equal(sent.split("Tickets: ABC-1").length, 2, "the start context is sent with one prompt only");
});

test("broken hook entries are reported and skipped; the valid ones still run", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "echo hi" } }] } },
    { reply: { text: "still here" } },
  ]);
  const cwd = tempDir();
  shellScript(cwd, "block.sh", "echo blocked by the valid hook >&2\nexit 2");
  settings(join(cwd, ".harness"), {
    PreToolUse: [
      { matcher: "(unclosed", hooks: [{ type: "command", command: "true" }] },
      {
        matcher: "bash",
        hooks: [
          { type: "prompt", prompt: "is this ok?" },
          { type: "command", command: "./block.sh" },
        ],
      },
      "not a group",
    ],
  });
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "hi"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "still here\n");
  assert.match(result.stderr, /ignoring hooks\.PreToolUse\[0\] in .*: the matcher is not a valid regular expression/);
  assert.match(result.stderr, /ignoring a hook of hooks\.PreToolUse\[1\] in .*: only \{"type": "command"/);
  assert.match(result.stderr, /ignoring hooks\.PreToolUse\[2\] in .*: expected object, received string\n/);
  assert.doesNotMatch(result.stderr, /✖|Invalid input/, "our words, not zod's");
  assert.equal(toolResult(fake, 1, "call_1"), "The bash call was blocked by a hook: blocked by the valid hook");
});

test("SessionEnd hooks run as the session closes, with Claude Code's reason (a one-shot: other); its matcher is the reason", async () => {
  const fake = await serve([{ reply: { text: "bye" } }]);
  const cwd = tempDir();
  settings(join(cwd, ".harness"), {
    SessionEnd: [
      { matcher: "other", hooks: [{ type: "command", command: "cat > end-input.json" }] },
      { matcher: "prompt_input_exit", hooks: [{ type: "command", command: "touch wrong-reason" }] },
    ],
  });
  const result = await runCli(["--trust", ...fakeFlags(fake), "--output", "json", "-p", "hi"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const event = JSON.parse(readFileSync(join(cwd, "end-input.json"), "utf8"));
  assert.deepEqual(event, {
    session_id: JSON.parse(result.stdout).sessionId,
    cwd,
    hook_event_name: "SessionEnd",
    reason: "other",
  });
  assert.equal(existsSync(join(cwd, "wrong-reason")), false);
});
