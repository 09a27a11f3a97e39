// --format claude: scripts built on `claude -p --output-format stream-json|json` read harness's
// run unchanged. The built CLI runs a tool loop against the fake server; every line is checked
// against a schema written from Claude Code's SDK docs (test/support/fixtures/claude-stream-json.schema.json),
// and the messages carry what the run did. --output-format is --output's other name.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { EVENT_SCHEMA_VERSION } from "../../src/core/event-schema.ts";
import { ClaudeOutput } from "../../src/ui/headless/claude-output.ts";
import { byConversation } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, jsonLines, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { taskCall, text } from "../support/subagent-steps.ts";

const serve = fakeServerPerTest();
const SCHEMA = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "support", "fixtures", "claude-stream-json.schema.json"), "utf8"),
);

const validate: ((line: unknown) => boolean) & { errors?: unknown[] | null } = new Ajv2020({
  strict: false,
  allErrors: true,
}).compile(SCHEMA);

/** Every line is one of Claude Code's messages, by the schema; the lines, to read after. */
function claudeLines(stdout: string): any[] {
  const lines = jsonLines(stdout);
  for (const line of lines)
    assert.ok(validate(line), `${JSON.stringify(line)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  return lines;
}

function toolLoop() {
  return serve([
    {
      reply: {
        text: "Looking.",
        toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "echo from-bash" } }],
      },
    },
    { reply: { text: "It printed from-bash." } },
  ]);
}

test("--output-format stream-json --format claude: system init, assistant tool_use, user tool_result, assistant text, result", async () => {
  const fake = await toolLoop();
  const cwd = tempDir();
  const result = await runCli(
    ["-y", ...fakeFlags(fake), "--output-format", "stream-json", "--format", "claude", "-p", "run it"],
    { cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = claudeLines(result.stdout);
  assert.deepEqual(
    lines.map((line) => (line.subtype ? `${line.type}:${line.subtype}` : line.type)),
    ["system:init", "assistant", "user", "assistant", "result:success"],
  );
  const [init, toolUse, toolResult, answer, done] = lines;
  assert.equal(init.cwd, cwd);
  assert.equal(init.model, "fake-model");
  assert.equal(init.permissionMode, "bypassPermissions");
  assert.ok(
    init.tools.includes("Bash") && init.tools.includes("Read") && init.tools.includes("Write"),
    init.tools.join(","),
  );
  assert.ok(init.slash_commands.includes("init"));
  assert.match(init.session_id, /\S/);
  for (const line of lines) assert.equal(line.session_id, init.session_id, "every message names the session");

  assert.deepEqual(toolUse.message.content, [
    { type: "text", text: "Looking." },
    { type: "tool_use", id: "call_1", name: "Bash", input: { command: "echo from-bash" } },
  ]);
  assert.equal(toolUse.message.stop_reason, "tool_use");
  assert.equal(toolResult.message.content[0].tool_use_id, "call_1");
  assert.equal(toolResult.message.content[0].is_error, false);
  assert.match(toolResult.message.content[0].content, /from-bash/);
  assert.deepEqual(answer.message.content, [{ type: "text", text: "It printed from-bash." }]);
  assert.equal(answer.message.stop_reason, "end_turn");

  assert.equal(done.result, "It printed from-bash.");
  assert.equal(done.is_error, false);
  assert.equal(done.num_turns, 2);
  assert.equal(done.total_cost_usd, 0, "fake-model has no price");
  assert.ok(done.usage.input_tokens > 0 && done.usage.output_tokens > 0, JSON.stringify(done.usage));
  assert.ok(done.duration_ms >= done.duration_api_ms);
});

test("--output json --format claude: one result object, as claude -p --output-format json writes", async () => {
  const fake = await toolLoop();
  const result = await runCli(["-y", ...fakeFlags(fake), "--output", "json", "--format", "claude", "-p", "run it"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = claudeLines(result.stdout);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].type, "result");
  assert.equal(lines[0].result, "It printed from-bash.");
});

test("--json-schema with --format claude: the result carries structured_output, as Claude Code's does", async () => {
  const fake = await serve([{ reply: { toolCalls: [{ id: "a1", name: "final_answer", arguments: { n: 3 } }] } }]);
  const schema = '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}';
  const args = [...fakeFlags(fake), "--json-schema", schema, "--output", "json", "--format", "claude", "-p", "count"];
  const result = await runCli(args);
  assert.equal(result.code, 0, result.stderr);
  const [done] = claudeLines(result.stdout);
  assert.equal(done.subtype, "success");
  assert.deepEqual(done.structured_output, { n: 3 });
  assert.equal(done.result, '{"n":3}');
});

test("--format claude at the turn limit: result error_max_turns with is_error, and exit 3", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "true" } }] } },
  ]);
  const result = await runCli([
    "-y",
    ...fakeFlags(fake),
    "--max-turns",
    "1",
    "--output-format",
    "json",
    "--format",
    "claude",
    "-p",
    "loop",
  ]);
  assert.equal(result.code, 3, result.stderr);
  const [done] = claudeLines(result.stdout);
  assert.equal(done.subtype, "error_max_turns");
  assert.equal(done.is_error, true);
  assert.equal(done.result, undefined);
});

test("--output-format is --output with no notice; without --format the events stay harness's own", async () => {
  const fake = await serve([{ reply: { text: "hi" } }]);
  const result = await runCli([...fakeFlags(fake), "--output-format", "stream-json", "-p", "hi"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(withoutSandboxWarning(result.stderr), "");
  const events = jsonLines(result.stdout);
  assert.equal(events[0].type, "start");
  assert.equal(events.at(-1).type, "done");
});

test("--format with text output, and --output and --output-format that disagree, are usage errors", async () => {
  const text = await runCli(["--format", "claude", "-p", "hi"]);
  assert.equal(text.code, 2);
  assert.match(text.stderr, /--format claude shapes --output json or stream-json/);
  const disagree = await runCli(["--output", "json", "--output-format", "stream-json", "-p", "hi"]);
  assert.equal(disagree.code, 2);
  assert.match(disagree.stderr, /--output json and --output-format stream-json disagree/);
  const unknown = await runCli(["--output", "json", "--format", "claud", "-p", "hi"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--format takes harness or claude/);
});

test("--format claude with a subagent: its replies and results carry parent_tool_use_id, the task call; one init and one result", async () => {
  const fake = await serve(
    byConversation({
      "PARENT:": [{ reply: { toolCalls: [taskCall("call_task", { prompt: "CHILD: list files" })] } }, text("all done")],
      "CHILD:": [
        { reply: { toolCalls: [{ id: "call_ls", name: "read_file", arguments: { path: "a.txt" } }] } },
        text("child found it"),
      ],
    }),
  );
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.txt"), "child-ran\n");
  const result = await runCli(
    ["-y", ...fakeFlags(fake), "--output", "stream-json", "--format", "claude", "-p", "PARENT: go"],
    { cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = claudeLines(result.stdout);
  assert.equal(lines.filter((line) => line.subtype === "init").length, 1);
  assert.equal(lines.filter((line) => line.type === "result").length, 1);
  const child = lines.filter((line) => line.parent_tool_use_id === "call_task");
  assert.deepEqual(
    child.map((line) => line.type),
    ["assistant", "user", "assistant"],
  );
  assert.deepEqual(child[0].message.content, [
    { type: "tool_use", id: "call_ls", name: "Read", input: { path: "a.txt", file_path: join(cwd, "a.txt") } },
  ]);
  assert.equal(child[1].message.content[0].tool_use_id, "call_ls");
  assert.match(child[1].message.content[0].content, /child-ran/);
  const own = lines.filter((line) => line.parent_tool_use_id === null);
  assert.deepEqual(
    own.map((line) => line.type),
    ["assistant", "user", "assistant"],
  );
  assert.equal(own[1].message.content[0].tool_use_id, "call_task");
  assert.equal(lines.at(-1).result, "all done");
});

test("Claude Code's stream-json in and out: --input-format and --output-format with --format claude, one init and result per input line", async () => {
  const fake = await serve([{ reply: { text: "first" } }, { reply: { text: "second" } }]);
  const input = [
    { type: "user", message: { role: "user", content: [{ type: "text", text: "one" }] } },
    { type: "user", message: { role: "user", content: "two" } },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
  const result = await runCli(
    [...fakeFlags(fake), "--input-format", "stream-json", "--output-format", "stream-json", "--format", "claude"],
    { input: `${input}\n` },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = claudeLines(result.stdout);
  assert.deepEqual(
    lines.map((line) => (line.subtype ? `${line.type}:${line.subtype}` : line.type)),
    ["system:init", "assistant", "result:success", "system:init", "assistant", "result:success"],
  );
  assert.deepEqual(
    lines.filter((line) => line.type === "result").map((line) => line.result),
    ["first", "second"],
  );
  assert.equal(lines[0].session_id, lines[3].session_id, "one conversation");
});

test("a compaction is Claude Code's compact_boundary (auto or manual, with the tokens before)", () => {
  let written = "";
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      written += chunk;
      done();
    },
  });
  const init = {
    cwd: "/w",
    tools: ["bash"],
    model: "m",
    approvalMode: "ask",
    slashCommands: [],
    claudeName: (tool: string) => tool,
    claudeInput: (_: string, input: unknown) => input,
  } as const;
  const output = new ClaudeOutput("stream-json", init, stdout);
  const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
  output.write({ type: "start", schemaVersion: EVENT_SCHEMA_VERSION, provider: "p", model: "m", sessionId: "s1" });
  for (const reason of ["threshold", "manual"] as const)
    output.write({
      type: "compaction",
      summary: "so far",
      removedMessages: 4,
      keptMessages: 2,
      tokensBefore: 9000,
      tokensAfter: 800,
      reason,
    });
  output.write({ type: "done", reason: "aborted", answer: "", turns: 1, usage, sessionId: "s1" });
  const lines = claudeLines(written);
  assert.equal(lines[0].permissionMode, "default");
  assert.deepEqual(
    lines.slice(1, 3).map((line) => line.compact_metadata),
    [
      { trigger: "auto", pre_tokens: 9000 },
      { trigger: "manual", pre_tokens: 9000 },
    ],
  );
  assert.equal(lines[3].subtype, "error_during_execution");
  assert.deepEqual(lines[3].errors, []);
});

test("--format claude: permission_denials lists the calls a rule refused, by Claude's tool name and input", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "call_rm", name: "bash", arguments: { command: "rm notes.txt" } },
          { id: "call_echo", name: "bash", arguments: { command: "echo fine" } },
        ],
      },
    },
    { reply: { text: "One refused." } },
  ]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "kept\n");
  mkdirSync(join(cwd, ".claude"));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  const result = await runCli(["-y", ...fakeFlags(fake), "--output", "json", "--format", "claude", "-p", "tidy"], {
    cwd,
  });
  assert.equal(result.code, 0, result.stderr);
  const [line] = claudeLines(result.stdout);
  assert.deepEqual(line.permission_denials, [
    { tool_name: "Bash", tool_use_id: "call_rm", tool_input: { command: "rm notes.txt" } },
  ]);
  assert.equal(readFileSync(join(cwd, "notes.txt"), "utf8"), "kept\n");
});
