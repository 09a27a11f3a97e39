// /status and /permissions word what the session took and where it came from (ui/commands/).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Rule } from "../../src/permissions/rules.ts";
import { agentsText } from "../../src/ui/commands/agents-command.ts";
import { hooksText } from "../../src/ui/commands/hooks-command.ts";
import { mcpText } from "../../src/ui/commands/mcp-command.ts";
import { permissionsText } from "../../src/ui/commands/permissions-command.ts";
import { statusText } from "../../src/ui/commands/status-command.ts";

const rule = (text: string, source: string): Rule => ({ tool: "bash", text, source, trusted: false });

test("/status names model, provider, mode, session, folder, sandbox, network, files, MCP and language servers", () => {
  const text = statusText({
    model: "gpt-x",
    provider: "openai",
    mode: "ask",
    sessionId: "s-123",
    cwd: "/work/p",
    sandbox: "on",
    network: "off",
    settingsFiles: ["/h/settings.json", "/work/p/.claude/settings.json"],
    mcpServers: [
      { name: "docs", state: "running", tools: 3, declaredIn: "/h/config.json" },
      { name: "gh", state: "not started (this folder is not trusted)", tools: 0, declaredIn: "/work/p/.mcp.json" },
    ],
    languageServers: [{ name: "typescript", command: "tsls", state: "running", restarts: 0, files: [] }],
  });
  for (const part of [
    "model: gpt-x (provider openai)",
    "approval mode: ask",
    "session: s-123",
    "folder: /work/p",
    "sandbox: on; network: off",
    "  /work/p/.claude/settings.json",
    "  docs: running, 3 tools",
    "  gh: not started (this folder is not trusted)",
    "language servers: typescript running",
  ])
    assert.ok(text.includes(part), `${part} in:\n${text}`);
  const bare = statusText({
    model: "m",
    provider: "p",
    mode: "plan",
    sessionId: "s",
    cwd: "/",
    sandbox: "unavailable",
    network: "not held back",
    settingsFiles: [],
    mcpServers: [],
    languageServers: [],
  });
  assert.match(bare, /settings files read: none\nMCP servers: none$/);
  assert.doesNotMatch(bare, /language servers/);
});

test("/permissions lists each rule with its file, the mode, rules waiting for trust and what was not taken", () => {
  const text = permissionsText({
    mode: "edits",
    deny: [rule("Bash(rm -rf:*)", "/p/.claude/settings.json")],
    ask: [],
    allow: [rule("bash(git status)", "/h/settings.json")],
    waitingForTrust: [rule("bash(make)", "/p/.harness/settings.json")],
    notTaken: ["/p/.claude/settings.json: sandbox.enabled false is ignored (only the user's file can)"],
  });
  assert.equal(
    text,
    [
      "approval mode: edits",
      "deny:",
      "  Bash(rm -rf:*)  (/p/.claude/settings.json)",
      "ask: none",
      "allow:",
      "  bash(git status)  (/h/settings.json)",
      "not taken until this folder is trusted (allow):",
      "  bash(make)  (/p/.harness/settings.json)",
      "not taken:",
      "  /p/.claude/settings.json: sandbox.enabled false is ignored (only the user's file can)",
    ].join("\n"),
  );
});

test("/hooks lists the hooks by event, each with matcher, command and file, or says there are none", () => {
  const text = hooksText([
    {
      event: "PreToolUse",
      matcher: "Bash",
      command: "./check.sh",
      source: "/p/.claude/settings.json",
      where: "hooks.PreToolUse[0]",
    },
    { event: "SessionStart", command: "echo hi", source: "/h/settings.json", where: "hooks.SessionStart[0]" },
    { event: "PreToolUse", command: "./log.sh", source: "/h/settings.json", where: "hooks.PreToolUse[0]" },
  ]);
  assert.equal(
    text,
    [
      "PreToolUse:",
      "  [Bash] ./check.sh  (/p/.claude/settings.json: hooks.PreToolUse[0])",
      "  ./log.sh  (/h/settings.json: hooks.PreToolUse[0])",
      "SessionStart:",
      "  echo hi  (/h/settings.json: hooks.SessionStart[0])",
    ].join("\n"),
  );
  assert.match(hooksText([]), /^no hooks in effect/);
});

test("/mcp lists each server with its state, tool count and the file it is declared in", () => {
  assert.equal(
    mcpText([
      { name: "docs", state: "running", tools: 3, declaredIn: "/h/config.json" },
      { name: "gh", state: "not started (this folder is not trusted)", tools: 0, declaredIn: "/p/.mcp.json" },
    ]),
    "docs: running, 3 tools  (/h/config.json)\ngh: not started (this folder is not trusted), 0 tools  (/p/.mcp.json)",
  );
  assert.match(mcpText([]), /^no MCP servers/);
});

test("/agents lists each named agent with its model, tools, isolation and file", () => {
  assert.equal(
    agentsText([
      { name: "reviewer", description: "reviews a diff", path: "/p/.claude/agents/reviewer.md" },
      {
        name: "fixer",
        description: "fixes a test",
        path: "/h/agents/fixer.md",
        model: "claude-haiku-4-5",
        tools: ["read_file", "edit_file", "bash"],
        isolation: "worktree",
      },
    ]),
    [
      "reviewer: reviews a diff",
      "  the session's model; read-only tools  (/p/.claude/agents/reviewer.md)",
      "fixer: fixes a test",
      "  claude-haiku-4-5; read_file, edit_file, bash, worktree  (/h/agents/fixer.md)",
    ].join("\n"),
  );
  assert.match(agentsText([]), /^no named agents/);
});
