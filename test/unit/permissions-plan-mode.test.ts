// Plan mode (`--approve plan`): reads, searches and fetches run; writes are refused but for the
// plan file; commands run only in the (read-only) sandbox and, without one, ask every time; a
// tool that runs outside the sandbox asks every time; deny and ask rules still come first. And
// the sandbox's read-only workspace, as bwrap and Seatbelt are told it.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import type { ApprovalDecision, ApprovalRequest } from "../../src/core/run-tools.ts";
import type { Tool } from "../../src/core/tool.ts";
import { ApprovalModeSwitch } from "../../src/permissions/approval-mode.ts";
import { createApprover } from "../../src/permissions/approver.ts";
import { decide, type PermissionPolicy } from "../../src/permissions/policy.ts";
import { bwrapArgs } from "../../src/sandbox/bwrap.ts";
import { macosProfile } from "../../src/sandbox/macos-profile.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { editFile } from "../../src/tools/edit-file.ts";
import { grep } from "../../src/tools/grep.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { webFetch } from "../../src/tools/web-fetch.ts";
import { writeFile } from "../../src/tools/write-file.ts";
import { tempDir } from "../support/helpers.ts";
import { parsedRules, rulePolicy } from "../support/permission-policy.ts";

const rules = (texts: string[]) => parsedRules(texts, "/home/u/.harness/settings.json");

function planPolicy(overrides: Partial<PermissionPolicy> = {}): PermissionPolicy {
  return { ...rulePolicy({}, "plan"), ...overrides };
}

/** A tool of an MCP server that claims nothing: it runs on its server, outside any sandbox. */
const remoteTool: Tool = {
  name: "mcp__srv__deploy",
  description: "deploys",
  kind: "execute",
  input: z.object({}),
  run: async () => "done",
};

test("plan mode: reads, searches and fetches run; writes are refused, the plan file excepted", async () => {
  const policy = planPolicy();
  const cwd = policy.workspace;
  writeFileSync(join(cwd, "a.txt"), "one\n");
  policy.planFile = join(policy.workspace, "plan.md");
  assert.deepEqual(await decide(readFile, { path: "a.txt" }, cwd, policy, []), { type: "allow" });
  assert.deepEqual(await decide(grep, { pattern: "one" }, cwd, policy, []), { type: "allow" });
  assert.deepEqual(await decide(webFetch, { url: "https://example.com/x" }, cwd, policy, []), { type: "allow" });
  for (const [tool, input] of [
    [writeFile, { path: "a.txt", content: "two\n" }],
    [editFile, { path: "a.txt", old_string: "one", new_string: "two" }],
    [writeFile, { path: "/var/tmp/elsewhere.txt", content: "x" }],
  ] as const) {
    const decision = await decide(tool as Tool, input, cwd, policy, []);
    assert.equal(decision.type, "deny", JSON.stringify(decision));
    assert.match((decision as { reason: string }).reason, /plan mode: nothing may change until the plan is approved/);
  }
  // An allow rule or "always" does not open an edit either.
  const allowed = await decide(
    writeFile,
    { path: "a.txt", content: "" },
    cwd,
    { ...policy, allow: rules(["edit"]) },
    [],
  );
  assert.equal(allowed.type, "deny");
  assert.deepEqual(await decide(writeFile, { path: "plan.md", content: "# Plan\n" }, cwd, policy, []), {
    type: "allow",
  });
});

test("plan mode: commands run in the sandbox, ask every time without one; deny and ask rules still first", async () => {
  const policy = planPolicy({ deny: rules(["bash(git push)"]), ask: rules(["bash(npm publish)"]) });
  const cwd = policy.workspace;
  const command = (line: string, over: Partial<PermissionPolicy> = {}) =>
    decide(bash, { command: line }, cwd, { ...policy, ...over }, []);
  // No allow-list needed: the sandbox makes everything read-only, so any command may run.
  assert.deepEqual(await command("rm -rf . && echo x > y"), { type: "allow" });
  assert.equal((await command("git push")).type, "deny");
  const asked = await command("npm publish");
  assert.equal(asked.type, "ask");
  assert.match((asked as { why: string }).why, /ask rule bash\(npm publish\)/);
  for (const sandbox of ["off", "unavailable"] as const) {
    const decision = await command("ls", { sandbox, allow: rules(["bash"]) });
    assert.equal(decision.type, "ask", sandbox);
    assert.equal((decision as { explicit?: true }).explicit, true, "no rule or always covers it");
    assert.match((decision as { why: string }).why, /plan mode changes nothing, and without the sandbox/);
  }
  const remote = await decide(remoteTool, {}, cwd, { ...policy, allow: rules(["mcp__srv__deploy"]) }, []);
  assert.equal(remote.type, "ask");
  assert.equal((remote as { explicit?: true }).explicit, true);
});

test("the approver follows the mode as it switches, and headless it says why a command without a sandbox is refused", async () => {
  const policy = planPolicy({ mode: "ask", sandbox: "off" });
  const mode = new ApprovalModeSwitch("ask");
  const heard: string[] = [];
  mode.onChange((now) => heard.push(now));
  const approve = createApprover({ policy, mode, cwd: policy.workspace });
  const request = (tool: Tool, input: unknown): ApprovalRequest => ({
    tool,
    input,
    call: { type: "tool_call", id: "c", name: tool.name, arguments: JSON.stringify(input) },
    summary: tool.name,
  });
  const reasonOf = (decision: ApprovalDecision) => (decision.allow ? "" : (decision.reason ?? ""));
  const signal = new AbortController().signal;
  const write = request(writeFile, { path: "n.txt", content: "x" });
  const refusedInAsk = await approve(write, signal);
  assert.equal(refusedInAsk.allow, false);
  assert.match(reasonOf(refusedInAsk), /no one was there to approve it/);
  mode.set("plan");
  mode.set("plan");
  assert.deepEqual(heard, ["plan"], "a change is heard once");
  assert.match(reasonOf(await approve(write, signal)), /plan mode: nothing may change/);
  const ls = await approve(request(bash, { command: "ls" }), signal);
  assert.match(reasonOf(ls), /headless run.*plan mode changes nothing, and without the sandbox \(turned off\)/);
  mode.set("edits");
  assert.equal((await approve(write, signal)).allow, true);
});

test("the sandbox's read-only workspace: bwrap binds it read-only and adds no writable mount; Seatbelt denies it", () => {
  const workspace = tempDir();
  const policy = { workspace, hidden: [], socketFolders: [], protectedNames: [".git"], network: false };
  const readOnly = bwrapArgs({ ...policy, readOnlyWorkspace: true }, workspace);
  const writable = bwrapArgs(policy, workspace);
  assert.ok(writable.join(" ").includes(`--bind ${workspace} ${workspace}`));
  assert.ok(readOnly.join(" ").includes(`--ro-bind ${workspace} ${workspace}`));
  assert.equal(readOnly.includes("--bind"), false, readOnly.join(" "));
  const profile = macosProfile({ ...policy, readOnlyWorkspace: true }).split("\n");
  const denied = profile.indexOf(`(deny file-write* (subpath "${workspace}"))`);
  const allowed = profile.findIndex((line) => line.startsWith("(allow file-write*"));
  assert.ok(denied > allowed && allowed >= 0, "the deny comes after the allow, so it wins");
  assert.equal(macosProfile(policy).includes(`(deny file-write* (subpath "${workspace}"))`), false);
});
