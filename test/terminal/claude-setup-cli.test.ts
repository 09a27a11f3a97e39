// A Claude Code setup copied in unchanged: .claude/commands (subfolders as namespaces, $ARGUMENTS
// and $1, front matter), ~/.claude/commands, CLAUDE.md with @imports (relative, ~, nested, none
// inside code), and the user-wide ~/.claude/CLAUDE.md and $HARNESS_HOME/AGENTS.md; last, a whole
// typical project (rules, hooks, a command, imports, .mcp.json) at once. Through the built CLI
// against the fake server, which records what the model was sent.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

function promptOf(request: RecordedRequest): string {
  return request.body.messages.filter((message: { role: string }) => message.role === "user").at(-1).content;
}

function systemOf(request: RecordedRequest): string {
  return request.body.messages[0].content;
}

/** A HOME with Claude Code's user files, and a repository with its project files. */
function claudeWorld() {
  const home = tempDir("harness-claude-home-");
  const env = cleanEnv({ HOME: home });
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, ".claude", "commands", "frontend"), { recursive: true });
  mkdirSync(join(home, ".claude", "commands"), { recursive: true });
  return { home, env, repo, harnessHome: env.HARNESS_HOME as string };
}

test(".claude/commands: a subfolder is a namespace, $1 and $ARGUMENTS fill in, front matter it does not take is reported", async () => {
  const { env, repo, home } = claudeWorld();
  writeFileSync(
    join(repo, ".claude", "commands", "frontend", "component.md"),
    "---\ndescription: Make a component\nargument-hint: <name>\nallowed-tools: Bash(npm test:*)\ndescripton: typo\n---\nCreate the component $1. Notes: $ARGUMENTS\n",
  );
  writeFileSync(join(repo, ".claude", "commands", "frontend", "styled.md"), "Style $1 as @docs/style.md says.\n");
  mkdirSync(join(repo, "docs"));
  writeFileSync(join(repo, "docs", "style.md"), "tabs, not spaces\n");
  writeFileSync(join(home, ".claude", "commands", "standup.md"), "Summarise yesterday's commits.\n");
  const fake = await serve([
    { reply: { text: "one" } },
    { reply: { text: "two" } },
    { reply: { text: "three" } },
    { reply: { text: "four" } },
  ]);

  const namespaced = await runCli([...fakeFlags(fake), "-p", "/frontend:component Button with a big icon"], {
    cwd: repo,
    env,
  });
  assert.equal(namespaced.code, 0, namespaced.stderr);
  assert.equal(promptOf(fake.requests[0]), "Create the component Button. Notes: Button with a big icon");
  assert.match(namespaced.stderr, /component\.md: allowed-tools is not taken \(harness asks for each call/);
  assert.match(namespaced.stderr, /component\.md: unknown front matter key descripton; did you mean description\?/);

  const bare = await runCli([...fakeFlags(fake), "-p", "/component Card"], { cwd: repo, env });
  assert.equal(bare.code, 0, bare.stderr);
  assert.equal(promptOf(fake.requests[1]), "Create the component Card. Notes: Card");

  const user = await runCli([...fakeFlags(fake), "-p", "/standup"], { cwd: repo, env });
  assert.equal(user.code, 0, user.stderr);
  assert.equal(promptOf(fake.requests[2]), "Summarise yesterday's commits.");

  // The command's own @mention attaches its file in a one-shot run, as the chat attaches it.
  const styled = await runCli([...fakeFlags(fake), "-p", "/styled Card"], { cwd: repo, env });
  assert.equal(styled.code, 0, styled.stderr);
  assert.equal(
    promptOf(fake.requests[3]),
    "Style Card as @docs/style.md says.\n\ndocs/style.md:\n```\ntabs, not spaces\n```",
  );
});

test("CLAUDE.md imports: relative to the file, ~/, nested, each file once, none inside code; the user's file comes first", async () => {
  const { env, repo, home, harnessHome } = claudeWorld();
  writeFileSync(join(home, ".claude", "CLAUDE.md"), "claude user rules\n@~/prefs/style.md\n");
  mkdirSync(join(home, "prefs"));
  writeFileSync(join(home, "prefs", "style.md"), "user style: short answers\n");
  mkdirSync(join(repo, "docs"));
  writeFileSync(
    join(repo, "CLAUDE.md"),
    "project rules; see @docs/testing.md.\n\n```\n@docs/never.md\n```\nand `@docs/never.md` in a span\n",
  );
  writeFileSync(join(repo, "docs", "testing.md"), "run npm test\n@deeper.md\n@../CLAUDE.md\n");
  writeFileSync(join(repo, "docs", "deeper.md"), "deeper rule\n");
  writeFileSync(join(repo, "docs", "never.md"), "NEVER IMPORTED\n");
  const fake = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);

  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd: repo, env });
  assert.equal(result.code, 0, result.stderr);
  const system = systemOf(fake.requests[0]);
  const sections = [...system.matchAll(/^# Instructions from (.+)$/gm)].map((match) => match[1]);
  assert.deepEqual(sections, [
    "~/.claude/CLAUDE.md",
    "~/prefs/style.md (imported by ~/.claude/CLAUDE.md)",
    "CLAUDE.md",
    "docs/testing.md (imported by CLAUDE.md)",
    "docs/deeper.md (imported by docs/testing.md)",
  ]);
  assert.match(system, /user style: short answers/);
  assert.match(system, /deeper rule/);
  assert.doesNotMatch(system, /NEVER IMPORTED/);

  // harness's own user file comes after Claude Code's; one that imports the other reads it once.
  writeFileSync(join(harnessHome, "AGENTS.md"), "harness user rules\n@~/.claude/CLAUDE.md\n");
  const second = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd: repo, env });
  assert.equal(second.code, 0, second.stderr);
  const again = systemOf(fake.requests[1]);
  assert.deepEqual([...again.matchAll(/^# Instructions from (.+)$/gm)].map((match) => match[1]).slice(0, 3), [
    "~/.claude/CLAUDE.md",
    "~/prefs/style.md (imported by ~/.claude/CLAUDE.md)",
    `${join(harnessHome, "AGENTS.md")}`,
  ]);
  assert.equal(again.match(/claude user rules/g)?.length, 1);
  assert.match(again, /\nharness user rules\n/);
});

test("imports stop after five hops", async () => {
  const { env, repo } = claudeWorld();
  writeFileSync(join(repo, "AGENTS.md"), "hop 0\n@h1.md\n");
  for (let hop = 1; hop <= 7; hop++) writeFileSync(join(repo, `h${hop}.md`), `hop ${hop}\n@h${hop + 1}.md\n`);
  const fake = await serve([{ reply: { text: "ok" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd: repo, env });
  assert.equal(result.code, 0, result.stderr);
  const system = systemOf(fake.requests[0]);
  assert.match(system, /hop 5/);
  assert.doesNotMatch(system, /hop 6/);
});

test("in chat, /frontend:component runs the namespaced command and /help lists it", {
  skip: needs("tmux"),
}, async () => {
  const { env, repo } = claudeWorld();
  writeFileSync(
    join(repo, ".claude", "commands", "frontend", "component.md"),
    "---\ndescription: Make a component\nargument-hint: <name>\n---\nCreate the component $1.\n",
  );
  const fake = await serve([{ reply: { text: "Made." } }]);
  const terminal = TmuxTerminal.start({
    args: fakeFlags(fake),
    cwd: repo,
    env: { ...(env as Record<string, string>), TERM: "xterm-256color" },
    columns: 120,
  });
  await terminal.waitFor(/> $/m, "the chat prompt");
  terminal.type("/help");
  terminal.send(["Enter"]);
  await terminal.waitFor(/^\/frontend:component <name> +Make a component$/m, "/help");
  terminal.type("/frontend:component Button");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Made\./, "the reply");
  assert.equal(promptOf(fake.requests[0]), "Create the component Button.");
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
});

/**
 * The "done when": a project set up for Claude Code, copied in unchanged, run headless
 * as its user would run `claude -p "/review src/app.js" --permission-mode acceptEdits`.
 */
function typicalClaudeProject(repo: string) {
  mkdirSync(join(repo, "src"));
  mkdirSync(join(repo, "docs"));
  mkdirSync(join(repo, ".claude", "hooks"), { recursive: true });
  writeFileSync(join(repo, "src", "app.js"), "export const answer = 41;\n");
  writeFileSync(join(repo, ".env"), "API_TOKEN=canary-dotenv-7731\n");
  writeFileSync(
    join(repo, "package.json"),
    JSON.stringify({ name: "app", private: true, scripts: { test: "node -e \"console.log('tests pass')\"" } }),
  );
  writeFileSync(join(repo, "CLAUDE.md"), "# App\nUse ES modules.\nSee @docs/conventions.md for style.\n");
  writeFileSync(join(repo, "docs", "conventions.md"), "Conventions: no semicolon-free code.\n");
  writeFileSync(
    join(repo, ".claude", "commands", "review.md"),
    "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS for bugs and fix them.\n",
  );
  // Claude Code's documented hook shapes: a Bash guard that blocks with exit 2, a logger after edits.
  const guard = join(repo, ".claude", "hooks", "bash-guard.sh");
  writeFileSync(
    guard,
    '#!/bin/sh\ninput=$(cat)\nprintf \'%s\\n\' "$input" >> "$CLAUDE_PROJECT_DIR/bash-hooks.jsonl"\ncase "$input" in *--updateSnapshot*) echo "snapshots are updated in CI only" >&2; exit 2;; esac\nexit 0\n',
  );
  const logger = join(repo, ".claude", "hooks", "after-edit.sh");
  writeFileSync(logger, '#!/bin/sh\ncat > "$CLAUDE_PROJECT_DIR/edit-hook.json"\n');
  chmodSync(guard, 0o755);
  chmodSync(logger, 0o755);
  const settings = join(repo, ".claude", "settings.json");
  writeFileSync(
    settings,
    JSON.stringify({
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      permissions: {
        allow: ["Bash(npm test:*)", "Bash(npm run lint)", "mcp__srv__echo"],
        ask: ["Bash(git push:*)"],
        deny: ["Read(./.env)", "Bash(curl:*)", "WebFetch"],
      },
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/bash-guard.sh' }],
          },
        ],
        PostToolUse: [
          {
            matcher: "Edit|MultiEdit|Write",
            hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/after-edit.sh' }],
          },
        ],
      },
    }),
  );
  writeFileSync(
    join(repo, ".claude", "settings.local.json"),
    JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
  );
  writeFileSync(
    join(repo, ".mcp.json"),
    JSON.stringify({ mcpServers: { srv: { type: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
  );
  return settings;
}

// bwrap: without a sandbox every command asks (headless: refused), allow rules notwithstanding.
test("a typical Claude Code project copied in unchanged: its command, imports, rules (deny, ask, allow), hooks and MCP server behave as under Claude Code", {
  skip: needs("bwrap"),
}, async () => {
  const { env, repo } = claudeWorld();
  const settings = typicalClaudeProject(repo);
  const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          call("env", "read_file", { path: ".env" }),
          call("test", "bash", { command: "npm test" }),
          call("snapshot", "bash", { command: "npm test -- --updateSnapshot" }),
          call("curl", "bash", { command: "curl -s http://127.0.0.1:9/" }),
          call("rm", "bash", { command: "rm -rf src" }),
          call("push", "bash", { command: "git push origin main" }),
          call("fetch", "web_fetch", { url: "http://127.0.0.1:9/" }),
          call("echo", "srv__echo", { message: "hello from mcp" }),
          call("read", "read_file", { path: "src/app.js" }),
        ],
      },
    },
    { reply: { toolCalls: [call("fix", "edit_file", { path: "src/app.js", old_string: "41", new_string: "42" })] } },
    { reply: { text: "Reviewed and fixed." } },
  ]);
  // The first request must list the server's tools: past a one-shot's 5 s wait on a loaded machine too.
  const result = await runCli(["--trust", "--approve", "edits", ...fakeFlags(fake), "-p", "/review src/app.js"], {
    cwd: repo,
    env: { ...env, HARNESS_MCP_STARTUP_WAIT_MS: "60000" },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "Reviewed and fixed.\n");
  assert.equal(result.stderr.match(/warning/g), null, result.stderr);

  // The command and CLAUDE.md with its import reached the model.
  const first = fake.requests[0];
  assert.equal(promptOf(first), "Review src/app.js for bugs and fix them.");
  assert.match(systemOf(first), /Use ES modules\./);
  assert.match(systemOf(first), /Conventions: no semicolon-free code\./);
  assert.ok(
    first.body.tools.some((tool: { function: { name: string } }) => tool.function.name === "srv__echo"),
    "the .mcp.json server's tools are offered",
  );

  const results = new Map<string, string>(
    fake.requests[2].body.messages
      .filter((message: { role: string }) => message.role === "tool")
      .map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
  );
  const resultOf = (id: string) => results.get(id) ?? "";
  assert.match(resultOf("env"), new RegExp(`the rule Read\\(\\./\\.env\\) in ${settings} forbids`));
  assert.doesNotMatch(JSON.stringify(fake.requests[1].body), /canary-dotenv-7731/);
  assert.match(resultOf("test"), /tests pass/, "an allow rule runs npm test unasked");
  assert.match(resultOf("snapshot"), /blocked by a hook: snapshots are updated in CI only/);
  assert.match(resultOf("curl"), /the rule Bash\(curl:\*\) in .* forbids/);
  assert.match(resultOf("rm"), /the rule Bash\(rm:\*\) in .*settings\.local\.json forbids/);
  assert.match(resultOf("push"), /no one was there to approve it .*the ask rule Bash\(git push:\*\) in .* asks before/);
  assert.match(resultOf("fetch"), /the rule WebFetch in .* forbids/);
  assert.match(resultOf("echo"), /hello from mcp/);
  assert.equal(readFileSync(join(repo, "src", "app.js"), "utf8"), "export const answer = 42;\n", resultOf("fix"));

  // The hooks got the payloads Claude Code sends.
  // One line per command, refused ones included: PreToolUse runs before the rules, as in Claude Code.
  const bashHooks = readFileSync(join(repo, "bash-hooks.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(bashHooks.map((event) => event.tool_input.command).sort(), [
    "curl -s http://127.0.0.1:9/",
    "git push origin main",
    "npm test",
    "npm test -- --updateSnapshot",
    "rm -rf src",
  ]);
  for (const event of bashHooks) {
    assert.equal(event.hook_event_name, "PreToolUse");
    assert.equal(event.tool_name, "Bash");
  }
  const editHook = JSON.parse(readFileSync(join(repo, "edit-hook.json"), "utf8"));
  assert.equal(editHook.hook_event_name, "PostToolUse");
  assert.equal(editHook.tool_name, "Edit");
  assert.equal(editHook.tool_input.file_path, join(repo, "src/app.js"));
  assert.equal(editHook.cwd, repo);
});
