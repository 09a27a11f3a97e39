// PreToolUse hooks run before the approval, as in Claude Code: an audit hook sees refused calls
// too, and a hook's permissionDecision is weighed without ever beating a rule. From the side of
// a user whose hook says "allow" to everything (or rewrites a call into a denied one): deny
// rules, ask rules, protected paths and questions with a reason still hold; a hook's "ask"
// holds even under --yes. Through the built CLI against the fake server, headless.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  fakeFlags,
  fakeServerPerTest,
  runCli,
  tempDir,
  toolResultOf as toolResult,
  writeJson,
} from "../support/helpers.ts";
import { canaryHomeDir } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";
import { openTrustedChat } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** A Claude project whose one PreToolUse hook (every tool) logs each payload to audit.jsonl, then runs `answer`. */
function auditedProject(answer: string): string {
  const cwd = tempDir("pre-tool-hook-");
  writeFileSync(join(cwd, "victim.txt"), "still here\n");
  const hook = join(cwd, "audit.sh");
  writeFileSync(hook, `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> audit.jsonl\n${answer}\n`);
  chmodSync(hook, 0o755);
  writeJson(join(cwd, ".claude", "settings.json"), {
    permissions: { deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] },
    hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "./audit.sh" }] }] },
  });
  return cwd;
}

const allowAll = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"audited"}}'`;
const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command } });

test("a hook's allow skips the ordinary question, but never a deny rule, an ask rule, a protected path or a question with a reason (a read outside the workspace); the hook saw every call", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = auditedProject(allowAll);
  const outside = join(canaryHomeDir("harness-hook-outside-"), "private.txt");
  writeFileSync(outside, "canary-outside-value\n");
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          bash("touch", "touch allowed-by-hook"),
          bash("rm", "rm victim.txt"),
          bash("push", "git push origin main"),
          { id: "protected", name: "write_file", arguments: { path: ".claude/settings.local.json", content: "{}" } },
          { id: "outside", name: "read_file", arguments: { path: outside } },
          { id: "edit", name: "write_file", arguments: { path: "made-by-hook-allow.txt", content: "x" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  // Headless, no --yes: without the hook, the touch would be refused for want of someone to approve it.
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "go"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(cwd, "allowed-by-hook")), true, toolResult(fake, 1, "touch"));
  assert.match(toolResult(fake, 1, "rm"), /the rule Bash\(rm:\*\) in .*settings\.json forbids `rm victim\.txt`/);
  assert.equal(readFileSync(join(cwd, "victim.txt"), "utf8"), "still here\n");
  assert.match(toolResult(fake, 1, "push"), /no one was there to approve it .*the ask rule Bash\(git push:\*\)/);
  assert.match(toolResult(fake, 1, "protected"), /no one was there to approve it/);
  assert.equal(existsSync(join(cwd, ".claude", "settings.local.json")), false);
  assert.match(toolResult(fake, 1, "outside"), /no one was there to approve it/);
  assert.doesNotMatch(JSON.stringify(fake.requests[1].body), /canary-outside-value/);
  assert.equal(existsSync(join(cwd, "made-by-hook-allow.txt")), true, toolResult(fake, 1, "edit"));
  const seen = readFileSync(join(cwd, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).tool_name);
  assert.deepEqual(
    seen,
    ["Bash", "Bash", "Bash", "Write", "Read", "Write"],
    "the audit hook saw the refused calls too",
  );
});

test("a hook's ask holds under --yes (headless: refused with its reason); a hook's rewrite is judged by the rules", async () => {
  const cwd = auditedProject(
    `case "$input" in
  *touch*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touch is audited"}}' ;;
  *"echo hi"*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"rm victim.txt"}}}' ;;
esac`,
  );
  const fake = await serve([
    { reply: { toolCalls: [bash("touch", "touch asked"), bash("echo", "echo hi"), bash("ls", "ls victim.txt")] } },
    { reply: { text: "done" } },
  ]);
  const result = await runCli(["--yes", "--trust", ...fakeFlags(fake), "-p", "go"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    toolResult(fake, 1, "touch"),
    /no one was there to approve it .*a PreToolUse hook asks: touch is audited/,
  );
  assert.equal(existsSync(join(cwd, "asked")), false);
  assert.match(toolResult(fake, 1, "echo"), /the rule Bash\(rm:\*\) in .* forbids `rm victim\.txt`/);
  assert.equal(readFileSync(join(cwd, "victim.txt"), "utf8"), "still here\n");
  assert.match(toolResult(fake, 1, "ls"), /victim\.txt/, "a call the hook says nothing of runs under --yes");
});

test("in a chat under --yes, a hook's ask puts the call to the person with its reason, offering no 'always'", {
  skip: needs("tmux"),
}, async () => {
  const cwd = auditedProject(
    `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touch is audited"}}'`,
  );
  const fake = await serve([
    { reply: { toolCalls: [bash("touch", "touch answered")] } },
    { reply: { text: "Made it." } },
  ]);
  const terminal = await openTrustedChat(fake, cwd, ["-y"]);
  terminal.type("touch it");
  terminal.send(["Enter"]);
  const question = await terminal.waitFor(/a PreToolUse hook asks: touch is audited(.*\n)*.*> $/m, "the question");
  assert.match(question, /allow\? bash> touch answered/);
  assert.doesNotMatch(question, /\[a\]lways/);
  terminal.type("y");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Made it\./, "the reply");
  assert.equal(existsSync(join(cwd, "answered")), true);
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
});
