// The macOS Seatbelt profile, checked where CI can check it (Linux: no sandbox-exec). The path
// patterns of its deny rules are run here as regular expressions against what an attacker would
// write (plant a hook, an MCP server, git config) and what ordinary work writes; the rule order
// that decides which of two matching rules wins is checked on the text.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROTECTED_NAMES } from "../../src/permissions/protected-paths.ts";
import { macosProfile } from "../../src/sandbox/macos-profile.ts";
import type { SandboxPolicy } from "../../src/sandbox/sandbox-policy.ts";
import { tempDir } from "../support/helpers.ts";

function policyFor(workspace: string, network: boolean): SandboxPolicy {
  return {
    workspace,
    hidden: [join(workspace, "..", "home", ".ssh")],
    socketFolders: ["/var/run"],
    protectedNames: PROTECTED_NAMES,
    network,
  };
}

/** The patterns of the `(deny file-write* ...)` line that protects names, as JavaScript regexes. */
function protectedPatterns(profile: string): RegExp[] {
  const line = profile.split("\n").find((text) => text.startsWith("(deny file-write* (regex"));
  assert.ok(line, profile);
  return [...line.matchAll(/\(regex #"([^"]*)"\)/g)].map((match) => new RegExp(match[1]));
}

test("macOS: protected names cannot be written at any depth, nor a nested repository's git config, while ordinary work can", () => {
  const workspace = tempDir("harness-macos-ws-");
  mkdirSync(join(workspace, "vendored", ".git", "hooks"), { recursive: true });
  const patterns = protectedPatterns(macosProfile(policyFor(workspace, false)));
  const isDenied = (relative: string) => patterns.some((regex) => regex.test(join(workspace, relative)));
  for (const planted of [
    ".harness/settings.json",
    ".harness",
    "deep/new/folder/.harness/settings.json",
    ".mcp.json",
    "sub/.mcp.json",
    ".git",
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/commondir",
    "vendored/.git/hooks/post-checkout",
    "vendored/.git/config",
  ])
    assert.ok(isDenied(planted), `${planted} must be unwritable`);
  for (const ordinary of [
    "src/app.ts",
    ".gitignore",
    ".harnessrc",
    "notes.mcp.json",
    ".git/objects/ab/cdef",
    ".git/index",
    "vendored/.git/objects/ab/cdef",
    "cloned/.git/config",
  ])
    assert.ok(!isDenied(ordinary), `${ordinary} must stay writable`);
});

test("macOS: an existing linked worktree's git folder and the files that redirect its git cannot be written", () => {
  const workspace = tempDir("harness-macos-ws-");
  mkdirSync(join(workspace, ".git", "worktrees", "linked"), { recursive: true });
  const line = macosProfile(policyFor(workspace, false))
    .split("\n")
    .find((text) => text.startsWith("(deny file-write* (regex"));
  const literals = [...(line ?? "").matchAll(/\(literal "([^"]*)"\)/g)].map((match) => match[1]);
  const admin = join(workspace, ".git", "worktrees", "linked");
  // config.worktree does not exist: a literal names a missing file too.
  for (const denied of [
    join(workspace, ".git", "worktrees"),
    admin,
    ...["commondir", "gitdir", "config.worktree"].map((name) => join(admin, name)),
  ])
    assert.ok(literals.includes(denied), `${denied} must be unwritable`);
  for (const ordinary of ["index", "HEAD", "logs/HEAD"])
    assert.ok(!literals.includes(join(admin, ordinary)), `${ordinary} must stay writable`);
});

test("macOS: a workspace path with regex characters is matched literally", () => {
  const workspace = join(tempDir("harness-macos-ws-"), "a+b (1)");
  mkdirSync(workspace);
  const patterns = protectedPatterns(macosProfile(policyFor(workspace, false)));
  assert.ok(patterns.some((regex) => regex.test(join(workspace, ".mcp.json"))));
  assert.ok(!patterns.some((regex) => regex.test(join(workspace.replace("a+b", "aab"), ".mcp.json"))));
});

test("macOS: host sockets are denied after the rule that allows unix sockets, and DNS stays reachable with the network on", () => {
  const workspace = tempDir("harness-macos-ws-");
  const offline = macosProfile(policyFor(workspace, false)).split("\n");
  const allowUnix = offline.findIndex((line) => line.includes("(allow network* (local unix-socket)"));
  const denySockets = offline.findIndex((line) => line.startsWith("(deny network-outbound"));
  assert.ok(allowUnix >= 0 && denySockets > allowUnix, "the later of two matching rules wins");
  assert.match(offline[denySockets], /\(subpath "[^"]*\/run"\)/);
  assert.match(offline[denySockets], /\.ssh"\)/, "hidden folders' sockets too (ssh-agent, docker)");
  assert.match(offline[denySockets], /com\\\.apple\\\.launchd/, "launchd's ssh-agent socket");
  const online = macosProfile(policyFor(workspace, true)).split("\n");
  assert.ok(!online.includes("(deny network*)"));
  const resolver = online.findIndex((line) => line.includes("mDNSResponder"));
  assert.ok(resolver > online.findIndex((line) => line.startsWith("(deny network-outbound")));
  for (const line of [...offline, ...online]) {
    const depth = [...line].reduce((open, char) => open + (char === "(" ? 1 : char === ")" ? -1 : 0), 0);
    assert.equal(depth, 0, `unbalanced: ${line}`);
  }
});

test("macOS: kernel settings cannot be changed (as root, `(allow default)` would let sysctl -w through)", () => {
  const lines = macosProfile(policyFor(tempDir("harness-macos-ws-"), true)).split("\n");
  const denied = lines.indexOf("(deny sysctl-write)");
  assert.ok(denied > lines.indexOf("(allow default)"), "after the default, so it wins");
  assert.ok(!lines.slice(denied).some((line) => line.includes("sysctl-write") && line.startsWith("(allow")));
});
