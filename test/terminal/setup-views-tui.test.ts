// /status, /permissions and /agents in a real terminal: a project's Claude Code deny rule is shown
// with the file it came from, that file among the settings files read, and a Claude Code agent
// with its file. One chat, no model call.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

test("/status, /permissions and /agents show the deny rule, the agent and the files they came from", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([]);
  const cwd = tempDir();
  mkdirSync(join(cwd, ".claude"));
  const file = join(cwd, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  mkdirSync(join(cwd, ".claude", "agents"));
  const agentFile = join(cwd, ".claude", "agents", "reviewer.md");
  writeFileSync(agentFile, "---\nname: reviewer\ndescription: reviews a diff\n---\nReview the diff.\n");
  const term = TmuxTerminal.start({
    args: fakeFlags(fake),
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
    columns: 200,
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("/status");
  term.send(["Enter"]);
  const status = await term.waitFor(/^MCP servers: none$/m, "the end of /status");
  assert.match(status, /^approval mode: ask$/m);
  assert.match(status, /^sandbox: \S+; network: /m);
  assert.ok(status.includes(`  ${file}\n`), `the file among those read:\n${status}`);
  term.type("/permissions");
  term.send(["Enter"]);
  const permissions = await term.waitFor(/^allow: none$/m, "the end of /permissions");
  assert.ok(permissions.includes(`deny:\n  Bash(rm:*)  (${file})`), `the rule and its file:\n${permissions}`);
  term.type("/agents");
  term.send(["Enter"]);
  const agents = await term.waitFor(/reviewer\.md\)$/m, "the end of /agents");
  assert.ok(
    agents.includes(`reviewer: reviews a diff\n  the session's model; read-only tools  (${agentFile})`),
    agents,
  );
  assert.equal(fake.requests.length, 0, "no model call");
  term.type("/exit");
  term.send(["Enter"]);
  await term.waitFor(/\[exit 0\]/, "the end of the chat");
});
