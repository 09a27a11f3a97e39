// A model searching its way out through the read tools: grep, list_files and glob started from
// a parent folder, and grep on /proc/self/environ, with --yes so nothing is asked. Credentials,
// harness's own sessions and the process environment must not come back. The built CLI against
// the fake model; the canary HOME lives under /var/tmp (outside the sandbox's private /tmp).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
/** A key in harness's own environment: what /proc/self/environ would give away. */
const PROCESS_KEY = "sk-proj-CANARYprocessKEY0123456789abcdef";
let home: string;
let project: string;
let harnessHome: string;

before(() => {
  home = mkdtempSync("/var/tmp/harness-reads-home-");
  const canaries: Record<string, string> = {
    ".ssh/id_ed25519": "CANARY ssh private key",
    ".aws/credentials": "CANARY aws_secret_access_key",
    ".netrc": "machine example.com login me password CANARY-netrc",
    ".harness/sessions/old-session.jsonl": '{"type":"message","text":"CANARY from an earlier session"}',
  };
  for (const [file, text] of Object.entries(canaries)) {
    mkdirSync(join(home, file, ".."), { recursive: true });
    writeFileSync(join(home, file), `${text}\n`);
  }
  harnessHome = join(home, ".harness");
  project = join(home, "project");
  mkdirSync(project);
  writeFileSync(join(project, "readme.md"), "CANARY-free project notes mention CANARY once\n");
  symlinkSync("/proc/self", join(project, "self")); // a way into /proc that a walk must not take
  writeFileSync(join(home, "notes.txt"), "an ordinary CANARY note in home\n");
});
after(() => rmSync(home, { recursive: true, force: true }));

function toolResults(fake: FakeLLM): string[] {
  return fake.requests[1].body.messages
    .filter((message: { role: string }) => message.role === "tool")
    .map((message: { content: string }) => message.content);
}

async function runCalls(calls: { name: string; arguments: Record<string, unknown> }[]): Promise<string[]> {
  const fake = await serve([
    { reply: { toolCalls: calls.map((call, index) => ({ id: `c${index}`, ...call })) } },
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv({ HOME: home, HARNESS_HOME: harnessHome, SOME_SERVICE_API_KEY: PROCESS_KEY });
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "look around"], { cwd: project, env });
  assert.equal(result.code, 0, result.stderr);
  return toolResults(fake);
}

test("grep, list_files and glob from a parent folder skip ~/.ssh, ~/.aws, ~/.netrc and harness's own sessions", {
  skip: needs("rg"),
}, async () => {
  const [grep, list, glob] = await runCalls([
    { name: "grep", arguments: { pattern: "CANARY", path: ".." } },
    { name: "list_files", arguments: { path: "..", depth: 4 } },
    { name: "glob", arguments: { pattern: "**/*", path: ".." } },
  ]);
  assert.match(grep, /notes\.txt:1:an ordinary CANARY note in home/, "the search did run over home");
  assert.match(grep, /readme\.md:1:/);
  for (const output of [grep, list, glob]) {
    assert.doesNotMatch(output, /ssh private key|aws_secret|CANARY-netrc|earlier session/);
    assert.doesNotMatch(output, /\.ssh|\.aws|\.netrc|old-session|sessions/);
  }
  assert.match(list, /notes\.txt/);
  assert.match(glob, /notes\.txt/);
});

test("grep and read_file on /proc/self/environ, or through a symlink into /proc, return no keys", {
  skip: needs("rg"),
}, async () => {
  const results = await runCalls([
    { name: "grep", arguments: { pattern: "sk-", path: "/proc/self/environ" } },
    { name: "grep", arguments: { pattern: "sk-", path: "self/environ" } },
    { name: "read_file", arguments: { path: "/proc/self/environ" } },
    { name: "grep", arguments: { pattern: "sk-proj" } },
    { name: "list_files", arguments: { path: "/proc/self" } },
  ]);
  for (const output of results) assert.doesNotMatch(output, /CANARYprocessKEY/);
  for (const output of results.slice(0, 3)) assert.match(output, /is under \/proc: file tools read nothing there/);
  assert.match(results[3], /No matches/);
  assert.match(results[4], /is under \/proc: file tools read nothing there/);
});

test("'..' inside glob patterns and a path through /proc/self/root do not reach ~/.ssh either", {
  skip: needs("rg"),
}, async () => {
  const results = await runCalls([
    { name: "glob", arguments: { pattern: "../**/id_ed25519" } },
    { name: "glob", arguments: { pattern: "../.ssh/*" } },
    { name: "grep", arguments: { pattern: "CANARY", glob: "../.ssh/*" } },
    { name: "grep", arguments: { pattern: "CANARY", path: `/proc/self/root${home}` } },
    { name: "read_file", arguments: { path: `/proc/self/root${home}/.ssh/id_ed25519` } },
    { name: "list_files", arguments: { path: `/proc/self/root${home}`, depth: 3 } },
  ]);
  for (const output of results) assert.doesNotMatch(output, /ssh private key|aws_secret|CANARY-netrc|earlier session/);
  assert.match(
    results[3],
    /notes\.txt:1:an ordinary CANARY note in home/,
    "the search through /proc/self/root did run",
  );
  assert.match(results[4], /\.ssh\/id_ed25519 is in .*\.ssh, where credentials live/);
  assert.doesNotMatch(results[5], /\.ssh|\.aws|\.netrc/);
});
