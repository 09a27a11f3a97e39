// File tools keep to the workspace: `..`, symlinks (dangling ones included) and glob patterns
// that leave it are caught; credentials folders are off limits; user rules can open a path.
// Real folders and real symlinks; the "outside" folder is outside the temp folder too.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Tool } from "../../src/core/tool.ts";
import { decide, type PermissionPolicy } from "../../src/permissions/policy.ts";
import { parseRule, type Rule } from "../../src/permissions/rules.ts";
import { editFile } from "../../src/tools/edit-file.ts";
import { glob } from "../../src/tools/glob.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { writeFile } from "../../src/tools/write-file.ts";
import { tempDir } from "../support/helpers.ts";

let outside: string;
let workspace: string;
let home: string;

before(() => {
  outside = mkdtempSync("/var/tmp/harness-outside-");
  writeFileSync(join(outside, "secret.txt"), "outside\n");
  home = tempDir("harness-home-");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_test"), "key\n");
  workspace = tempDir();
  writeFileSync(join(workspace, "inside.txt"), "inside\n");
  symlinkSync(outside, join(workspace, "link-to-outside"));
  symlinkSync(join(outside, "secret.txt"), join(workspace, "file-link"));
  symlinkSync(join(outside, "created-through-link.txt"), join(workspace, "dangling"));
  symlinkSync(join(home, ".ssh"), join(workspace, "ssh-link"));
});
after(() => rmSync(outside, { recursive: true, force: true }));

function policy(overrides: Partial<PermissionPolicy> = {}): PermissionPolicy {
  return {
    mode: "edits",
    allow: [],
    deny: [],
    ask: [],
    sandbox: "on",
    workspace,
    freeRoots: [],
    secretPaths: [join(home, ".ssh")],
    readableGlobs: [],
    home,
    ...overrides,
  };
}

function check(tool: Tool, input: Record<string, unknown>, options: Partial<PermissionPolicy> = {}) {
  return decide(tool, input, workspace, policy(options), []);
}

function rule(text: string, trusted: boolean): Rule {
  const parsed = parseRule(text, trusted ? "user settings" : "project settings", trusted);
  assert.ok(typeof parsed !== "string");
  return parsed;
}

test("edits inside the workspace run (edits mode)", async () => {
  assert.deepEqual(await check(writeFile, { path: "new/file.txt", content: "x" }), { type: "allow" });
  assert.deepEqual(await check(editFile, { path: "inside.txt", old_string: "inside", new_string: "in" }), {
    type: "allow",
  });
});

test("writes through `..` or a symlink that leaves the workspace are denied", async () => {
  for (const [tool, input] of [
    [writeFile, { path: "link-to-outside/new.txt", content: "x" }],
    [writeFile, { path: "file-link", content: "x" }],
    [writeFile, { path: "dangling", content: "x" }],
    [writeFile, { path: join("..", "..", outside.slice(1), "x.txt"), content: "x" }],
    [editFile, { path: "file-link", old_string: "outside", new_string: "changed" }],
    [editFile, { path: "link-to-outside/secret.txt", old_string: "outside", new_string: "changed" }],
  ] as const) {
    const decision = await check(tool, input);
    assert.equal(decision.type, "deny", `${tool.name} ${input.path}`);
    assert.match(decision.type === "deny" ? decision.reason : "", /is outside the workspace/);
  }
});

test("reads outside the workspace ask (with --yes they run); --sandbox off lets edits ask instead of failing", async () => {
  const target = join(outside, "secret.txt");
  assert.deepEqual(await check(readFile, { path: "file-link" }), {
    type: "ask",
    why: `${target} is outside the workspace`,
    remember: [rule(`read_file(${target})`, true)].map((r) => ({ ...r, source: "this session" })),
  });
  assert.equal((await check(readFile, { path: "link-to-outside/secret.txt" })).type, "ask");
  assert.deepEqual(await check(readFile, { path: "file-link" }, { mode: "all" }), { type: "allow" });
  assert.equal((await check(glob, { pattern: "../../../../../../*" })).type, "ask", "a glob pattern that climbs out");
  assert.equal((await check(writeFile, { path: "file-link", content: "x" }, { sandbox: "off" })).type, "ask");
});

test("credentials folders are off limits to file tools, through symlinks too, unless the sandbox is off", async () => {
  for (const path of [join(home, ".ssh", "id_test"), "ssh-link/id_test"]) {
    const decision = await check(readFile, { path }, { mode: "all" });
    assert.equal(decision.type, "deny", path);
    assert.match(decision.type === "deny" ? decision.reason : "", /where credentials live/);
  }
  assert.equal((await check(readFile, { path: "ssh-link/id_test" }, { sandbox: "off" })).type, "ask");
});

test("a path rule from the user's settings opens a path; the same rule from a project file does not", async () => {
  const userRule = rule(`write_file(${outside}/**)`, true);
  assert.deepEqual(await check(writeFile, { path: "link-to-outside/new.txt", content: "x" }, { allow: [userRule] }), {
    type: "allow",
  });
  const projectRule = rule(`write_file(${outside}/**)`, false);
  assert.equal(
    (await check(writeFile, { path: "link-to-outside/new.txt", content: "x" }, { allow: [projectRule] })).type,
    "deny",
  );
  const denyRule = rule("read_file(**/.env)", false);
  writeFileSync(join(workspace, ".env"), "X=1\n");
  assert.equal((await check(readFile, { path: ".env" }, { deny: [denyRule] })).type, "deny");
});

test("spilled tool output in the state folder stays readable while the rest of it is hidden", async () => {
  const state = join(home, ".harness");
  const options = {
    secretPaths: [state],
    readableGlobs: [join(state, "sessions", "*", "spill")],
    mode: "all" as const,
  };
  assert.deepEqual(await check(readFile, { path: join(state, "sessions", "abc", "spill", "call_1.txt") }, options), {
    type: "allow",
  });
  assert.equal((await check(readFile, { path: join(state, "settings.json") }, options)).type, "deny");
  assert.equal(
    (await check(writeFile, { path: join(state, "sessions", "abc", "spill", "call_1.txt"), content: "x" }, options))
      .type,
    "deny",
  );
});
