// A project with a typical Claude Code setup copied in unchanged, through the built CLI: its
// `.claude/settings.json` (and `.claude/settings.local.json`, and the user's
// `~/.claude/settings.json`) deny rules hold under Claude's tool names, its PreToolUse hook
// with Claude's matcher fires with the payload Claude's hooks read and blocks with exit 2, and
// a typo in a rule or matcher is reported; headless, a guard with a typo stops the run before
// anything runs. Written from the side of the person relying on those guards.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  ROOT,
  runCli,
  tempDir,
  toolResultOf as toolResult,
  writeJson,
} from "../support/helpers.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

const serve = fakeServerPerTest();

/** A project as a Claude Code user has it: rules, a guard hook, an MCP server, a secret .env. */
function claudeProject() {
  const cwd = tempDir("claude-project-");
  writeFileSync(join(cwd, ".env"), "SECRET=canary-env-value\n");
  writeFileSync(join(cwd, "notes.md"), "old notes\n");
  // Claude Code's own example shape: jq-free, reads the payload, exit 2 blocks (notes.md only: it
  // runs before the rules, so a Write it let through meets the deny rule).
  const guard = join(cwd, ".claude", "hooks", "guard.sh");
  mkdirSync(join(guard, ".."), { recursive: true });
  writeFileSync(
    guard,
    '#!/bin/sh\ncat > "$CLAUDE_PROJECT_DIR/hook-input.json"\ncase "$(cat "$CLAUDE_PROJECT_DIR/hook-input.json")" in *notes.md*) echo "notes are read-only" >&2; exit 2;; esac\n',
  );
  chmodSync(guard, 0o755);
  writeJson(join(cwd, ".claude", "settings.json"), {
    $schema: "https://json.schemastore.org/claude-code-settings.json",
    model: "claude-sonnet-4-5",
    permissions: {
      allow: ["Bash(npm test:*)", "Read(//tmp/**)"],
      deny: ["Write", "WebFetch", "mcp__srv__echo", "Read(./.env)"],
    },
    hooks: {
      PreToolUse: [
        {
          matcher: "Edit|MultiEdit|Write",
          hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }],
        },
      ],
    },
  });
  writeJson(join(cwd, ".claude", "settings.local.json"), { permissions: { deny: ["Bash(rm:*)"] } });
  writeJson(join(cwd, ".mcp.json"), {
    mcpServers: { srv: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
  });
  return cwd;
}

test("a Claude Code project's deny rules hold under Claude's names, and its Edit|MultiEdit|Write hook blocks with Claude's payload", async () => {
  const cwd = claudeProject();
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "write", name: "write_file", arguments: { path: "new.txt", content: "x" } },
          { id: "fetch", name: "web_fetch", arguments: { url: "http://127.0.0.1:9/" } },
          { id: "mcp", name: "srv__echo", arguments: { message: "hi" } },
          { id: "env", name: "read_file", arguments: { path: ".env" } },
          { id: "grep", name: "grep", arguments: { pattern: "canary", path: "." } },
          { id: "rm", name: "bash", arguments: { command: "rm notes.md" } },
          { id: "edit", name: "edit_file", arguments: { path: "notes.md", old_string: "old", new_string: "new" } },
        ],
      },
    },
    { reply: { text: "all refused" } },
  ]);
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "try everything"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "all refused\n");
  const settings = join(cwd, ".claude", "settings.json");
  assert.match(toolResult(fake, 1, "write"), new RegExp(`the rule Write in ${settings} forbids write_file calls`));
  assert.match(toolResult(fake, 1, "fetch"), /the rule WebFetch in .* forbids/);
  assert.match(toolResult(fake, 1, "mcp"), /the rule mcp__srv__echo in .* forbids srv__echo calls/);
  assert.match(toolResult(fake, 1, "env"), /the rule Read\(\.\/\.env\) in .* forbids/);
  assert.doesNotMatch(
    JSON.stringify(fake.requests[1].body),
    /canary-env-value/,
    "nor does a grep over the folder show it",
  );
  assert.doesNotMatch(toolResult(fake, 1, "grep"), /\.env/);
  assert.match(toolResult(fake, 1, "rm"), /the rule Bash\(rm:\*\) in .*settings\.local\.json forbids `rm notes\.md`/);
  assert.equal(existsSync(join(cwd, "new.txt")), false);
  assert.equal(readFileSync(join(cwd, "notes.md"), "utf8"), "old notes\n");
  assert.equal(toolResult(fake, 1, "edit"), "The edit_file call was blocked by a hook: notes are read-only");
  const payload = JSON.parse(readFileSync(join(cwd, "hook-input.json"), "utf8"));
  assert.equal(payload.hook_event_name, "PreToolUse");
  assert.equal(payload.tool_name, "Edit", "Claude's name, for a hook from Claude's file");
  assert.equal(payload.tool_input.file_path, join(cwd, "notes.md"), "absolute, as Claude sends it");
  assert.equal(payload.tool_input.path, "notes.md", "ours as the model wrote it");
  assert.equal(payload.tool_input.old_string, "old");
  assert.equal(payload.tool_input.new_string, "new");
  assert.equal(payload.cwd, cwd);
  assert.equal(typeof payload.session_id, "string");
  assert.doesNotMatch(result.stderr, /model/, "Claude's model choice is knowingly not applicable: no notice");
});

test("without trust, a Claude project's deny rules still hold; its hook does not run and is reported", async () => {
  const cwd = claudeProject();
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "write", name: "write_file", arguments: { path: "new.txt", content: "x" } },
          { id: "env", name: "read_file", arguments: { path: ".env" } },
        ],
      },
    },
    { reply: { text: "ok" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "try"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "write"), /the rule Write in .* forbids write_file calls/);
  assert.match(toolResult(fake, 1, "env"), /the rule Read\(\.\/\.env\) in .* forbids/);
  assert.match(
    result.stderr,
    /not trusted: ignoring 1 hook, 1 MCP server, 2 allow rules from \.claude\/settings\.json, \.mcp\.json/,
  );
  assert.equal(existsSync(join(cwd, "hook-input.json")), false);
});

test("the user's ~/.claude/settings.json applies as the user's own; Claude's keys harness does not take are reported", async () => {
  const cwd = tempDir();
  const claudeHome = tempDir("claude-home-");
  writeJson(join(claudeHome, "settings.json"), {
    env: { FOO: "bar" },
    permissions: { deny: ["Bash(curl:*)"], defaultMode: "acceptEdits" },
  });
  const fake = await serve([
    { reply: { toolCalls: [{ id: "curl", name: "bash", arguments: { command: "curl http://127.0.0.1:9/" } }] } },
    { reply: { text: "ok" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "try"], {
    cwd,
    env: cleanEnv({ CLAUDE_CONFIG_DIR: claudeHome }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "curl"), /the rule Bash\(curl:\*\) in .* forbids `curl http/);
  assert.match(result.stderr, /harness does not use env \(.*\), permissions\.defaultMode \(/);
});

test("headless, a typo in a deny rule or a PreToolUse matcher stops the run with exit 2 before any model call or tool", async () => {
  for (const settings of [
    { permissions: { deny: ["Wirte"] } },
    { hooks: { PreToolUse: [{ matcher: "Edit|Wirte", hooks: [{ type: "command", command: "touch hook-ran" }] }] } },
  ]) {
    const cwd = tempDir();
    writeJson(join(cwd, ".claude", "settings.json"), settings);
    const fake = await serve([
      { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "x.txt", content: "x" } }] } },
      { reply: { text: "should not get here" } },
    ]);
    const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "write"], { cwd });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Wirte names no tool \(did you mean Write\?\)/);
    assert.match(result.stderr, /\.claude\/settings\.json/);
    assert.equal(fake.requests.length, 0, "no model call");
    assert.equal(existsSync(join(cwd, "x.txt")), false);
    assert.equal(existsSync(join(cwd, "hook-ran")), false);
  }
});

test("a typo in an allow rule is a warning naming the file and the nearest name; an unknown key in Claude's file too", async () => {
  const cwd = tempDir();
  writeJson(join(cwd, ".harness", "settings.json"), { permissions: { allow: ["red_file"] } });
  writeJson(join(cwd, ".claude", "settings.json"), {
    permisions: { deny: ["Write"] },
    hooks: { PreToolUs: [{ hooks: [{ type: "command", command: "true" }] }] },
  });
  const fake = await serve([{ reply: { text: "fine" } }]);
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "hi"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /\.harness\/settings\.json: the allow rule red_file names no tool \(did you mean read_file\?\)/,
  );
  assert.match(result.stderr, /\.claude\/settings\.json: unknown key "permisions" \(did you mean "permissions"\?\)/);
  assert.match(result.stderr, /ignoring hooks\.PreToolUs in .*: did you mean PreToolUse\?/);
});

test("Claude's path forms: /path is the project's, //path the file system's; a pattern on a tool that takes none is an error", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, "docs"));
  writeFileSync(join(cwd, "docs", "a.md"), "a\n");
  writeJson(join(cwd, ".claude", "settings.json"), {
    permissions: { deny: ["Edit(/docs/**)", "Read(//etc/hostname)"] },
  });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "docs", name: "write_file", arguments: { path: "docs/a.md", content: "b\n" } },
          { id: "host", name: "read_file", arguments: { path: "/etc/hostname" } },
        ],
      },
    },
    { reply: { text: "ok" } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "try"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake, 1, "docs"), /the rule Edit\(\/docs\/\*\*\) in .* forbids/);
  assert.match(toolResult(fake, 1, "host"), /the rule Read\(\/\/etc\/hostname\) in .* forbids/);
  assert.equal(readFileSync(join(cwd, "docs", "a.md"), "utf8"), "a\n");

  writeJson(join(cwd, ".claude", "settings.json"), { permissions: { deny: ["TodoWrite(x)"] } });
  const stopped = await runCli(["-y", ...fakeFlags(fake), "-p", "try"], { cwd });
  assert.equal(stopped.code, 2, stopped.stderr);
  assert.match(stopped.stderr, /the deny rule TodoWrite\(x\) has a pattern harness cannot match/);
});

test("hooks in the user's ~/.claude/settings.json: Bash gets tool_input.command, mcp__srv__.* fires on the server's tools with Claude's name; harness's own file keeps ours", async () => {
  const cwd = tempDir();
  const claudeHome = tempDir("claude-home-");
  const harnessHome = tempDir("harness-home-");
  const record = (name: string) => `cat > ${join(cwd, name)}.json`;
  writeJson(join(claudeHome, "settings.json"), {
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: record("claude-bash") }] },
        { matcher: "mcp__srv__.*", hooks: [{ type: "command", command: record("claude-mcp") }] },
      ],
    },
  });
  writeJson(join(harnessHome, "settings.json"), {
    hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: record("harness-write") }] }] },
  });
  writeJson(join(harnessHome, "config.json"), {
    mcpServers: { srv: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
  });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "sh", name: "bash", arguments: { command: "echo hi" } },
          { id: "mcp", name: "srv__echo", arguments: { message: "hello" } },
          { id: "w", name: "write_file", arguments: { path: "out.txt", content: "x" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv({ CLAUDE_CONFIG_DIR: claudeHome, HARNESS_HOME: harnessHome });
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "go"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  const bashEvent = JSON.parse(readFileSync(join(cwd, "claude-bash.json"), "utf8"));
  assert.equal(bashEvent.tool_name, "Bash");
  assert.deepEqual(bashEvent.tool_input, { command: "echo hi" });
  const mcpEvent = JSON.parse(readFileSync(join(cwd, "claude-mcp.json"), "utf8"));
  assert.equal(mcpEvent.tool_name, "mcp__srv__echo");
  assert.deepEqual(mcpEvent.tool_input, { message: "hello" });
  const writeEvent = JSON.parse(readFileSync(join(cwd, "harness-write.json"), "utf8"));
  assert.equal(writeEvent.tool_name, "write_file", "a hook from harness's file is told harness's names");
  assert.deepEqual(writeEvent.tool_input, { path: "out.txt", file_path: join(cwd, "out.txt"), content: "x" });
  assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "x");
});

test("a Claude hook's updatedInput in Claude's field names rewrites harness's arguments (file_path is path)", async () => {
  const cwd = tempDir();
  const answer = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      updatedInput: { file_path: "redirected.txt", content: "from the hook" },
    },
  });
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: `cat >/dev/null; echo '${answer}'` }] }],
    },
  });
  const fake = await serve([
    { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "asked.txt", content: "model" } }] } },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["-y", "--trust", ...fakeFlags(fake), "-p", "write"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(cwd, "redirected.txt"), "utf8"), "from the hook");
  assert.equal(existsSync(join(cwd, "asked.txt")), false);
});

test("additionalDirectories: the user's opens a folder to the file tools; a project's only once the folder is trusted", async (t) => {
  const cwd = tempDir();
  // Outside the temp folder, which the file tools may use freely anyway.
  const other = mkdtempSync("/var/tmp/harness-claude-other-");
  t.after(() => rmSync(other, { recursive: true, force: true }));
  writeFileSync(join(other, "lib.txt"), "shared library notes\n");
  const claudeHome = tempDir("claude-home-");
  const call = { id: "r", name: "read_file", arguments: { path: join(other, "lib.txt") } };
  const fake = await serve([
    { reply: { toolCalls: [call] } },
    { reply: { text: "user" } },
    { reply: { toolCalls: [call] } },
    { reply: { text: "untrusted" } },
    { reply: { toolCalls: [call] } },
    { reply: { text: "trusted" } },
  ]);
  writeJson(join(claudeHome, "settings.json"), { permissions: { additionalDirectories: [other] } });
  const user = await runCli([...fakeFlags(fake), "-p", "read"], {
    cwd,
    env: cleanEnv({ CLAUDE_CONFIG_DIR: claudeHome }),
  });
  assert.equal(user.code, 0, user.stderr);
  assert.match(toolResult(fake, 1, "r"), /shared library notes/);

  writeJson(join(cwd, ".claude", "settings.json"), { permissions: { additionalDirectories: [other] } });
  const untrusted = await runCli([...fakeFlags(fake), "-p", "read"], { cwd });
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.doesNotMatch(toolResult(fake, 3, "r"), /shared library notes/);
  assert.match(untrusted.stderr, /not trusted: ignoring 1 allow rule from \.claude\/settings\.json/);
  const trusted = await runCli(["--trust", ...fakeFlags(fake), "-p", "read"], { cwd });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(toolResult(fake, 5, "r"), /shared library notes/);
});

test("a rule or matcher for an MCP server harness does not configure warns (no such tool can run); a near miss of a configured one stops headless", async () => {
  const cwd = tempDir();
  const claudeHome = tempDir("claude-home-");
  const harnessHome = tempDir("harness-home-");
  writeJson(join(harnessHome, "config.json"), {
    mcpServers: { srv: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
  });
  // Servers of Claude Code's own (~/.claude.json), which harness does not read.
  writeJson(join(claudeHome, "settings.json"), {
    permissions: { deny: ["mcp__github__create_issue"] },
    hooks: { PreToolUse: [{ matcher: "mcp__github__.*", hooks: [{ type: "command", command: "true" }] }] },
  });
  const fake = await serve([{ reply: { text: "ran" } }, { reply: { text: "never" } }]);
  // "did you mean" names the server's tool, so the one-shot waits for it to start (a liveness bound).
  const env = cleanEnv({
    CLAUDE_CONFIG_DIR: claudeHome,
    HARNESS_HOME: harnessHome,
    HARNESS_MCP_STARTUP_WAIT_MS: "60000",
  });
  const runs = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd, env });
  assert.equal(runs.code, 0, runs.stderr);
  assert.match(
    runs.stderr,
    /warning: .*the deny rule mcp__github__create_issue names no tool \(no MCP server "github" is configured here\)\n/,
  );
  assert.match(
    runs.stderr,
    /warning: .*matcher "mcp__github__\.\*"\) matches no tool this session has \(no MCP server "github"/,
  );

  writeJson(join(claudeHome, "settings.json"), { permissions: { deny: ["mcp__srvv__echo"] } });
  const stopped = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd, env });
  assert.equal(stopped.code, 2, stopped.stderr);
  assert.match(stopped.stderr, /the deny rule mcp__srvv__echo names no tool \(did you mean mcp__srv__echo\?\)/);
  assert.equal(fake.requests.length, 1, "the second run made no model call");
});

test("mcp__srv and mcp__srv__* deny every tool of the server, and no other", async () => {
  for (const rule of ["mcp__srv", "mcp__srv__*"]) {
    const cwd = tempDir();
    const harnessHome = tempDir("harness-home-");
    writeJson(join(harnessHome, "config.json"), {
      mcpServers: { srv: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
    });
    writeJson(join(cwd, ".claude", "settings.json"), { permissions: { deny: [rule] } });
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "echo", name: "srv__echo", arguments: { message: "hi" } },
            { id: "sum", name: "srv__get-sum", arguments: { a: 1, b: 2 } },
            { id: "ls", name: "list_files", arguments: {} },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "go"], {
      cwd,
      env: cleanEnv({ HARNESS_HOME: harnessHome }),
    });
    assert.equal(result.code, 0, result.stderr);
    const escaped = rule.replace(/\*/g, "\\*");
    assert.match(toolResult(fake, 1, "echo"), new RegExp(`the rule ${escaped} in .* forbids srv__echo calls`));
    assert.match(toolResult(fake, 1, "sum"), new RegExp(`the rule ${escaped} in .* forbids srv__get-sum calls`));
    assert.doesNotMatch(toolResult(fake, 1, "ls"), /forbids/);
  }
});
