// The bash tool inside the real bubblewrap sandbox, set up exactly as the CLI sets it up.
// Needs `bwrap` (Debian package bubblewrap; .ci/run installs it).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseArguments } from "../../src/core/tool.ts";
import { type PermissionSetup, setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { detectSandbox } from "../../src/sandbox/detect-sandbox.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

/**
 * A home folder on the read-only part of the file system (not under /tmp, which the sandbox
 * replaces anyway), so hiding ~/.ssh is what keeps it out of reach.
 */
const HOME_PARENT = "/var/tmp";
let home: string;
/** Every test here runs commands in real bubblewrap. */
const bwrapMissing = needs("bwrap");

before(() => {
  if (bwrapMissing) return;
  const support = detectSandbox();
  assert.equal(
    support.kind,
    "bwrap",
    `these tests need a working bwrap: ${"problem" in support ? `${support.problem}; ${support.fix}` : ""}`,
  );
  home = mkdtempSync(join(HOME_PARENT, "harness-sandbox-home-"));
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_test"), "PRIVATE KEY MATERIAL\n");
  writeFileSync(join(home, "visible.txt"), "plain file in home\n");
  mkdirSync(join(home, ".harness"));
  writeFileSync(join(home, ".harness", "settings.json"), "{}\n");
});
after(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

function sandboxFor(cwd: string, options: { network?: boolean } = {}): PermissionSetup {
  const setup = setupPermissions(
    { allowNetwork: options.network },
    { cwd, env: { HOME: home, PATH: process.env.PATH }, harnessHome: join(home, ".harness") },
  );
  assert.equal(setup.policy.sandbox, "on");
  return setup;
}

async function runSandboxed(
  command: string,
  cwd: string,
  options: { network?: boolean; timeout?: number; signal?: AbortSignal } = {},
) {
  const setup = sandboxFor(cwd, options);
  const parsed = parseArguments(
    bash,
    JSON.stringify({ command, ...(options.timeout ? { timeout: options.timeout } : {}) }),
  );
  assert.ok(parsed.ok);
  const output = await bash.run(parsed.input as { command: string }, {
    cwd,
    signal: options.signal ?? new AbortController().signal,
    state: new Map(),
    env: setup.env,
    wrapCommand: setup.wrapCommand,
  });
  return typeof output === "string" ? { content: output, isError: false } : output;
}

test("inside the workspace commands read and write as usual", { skip: bwrapMissing }, async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "input.txt"), "hello\n");
  const result = await runSandboxed(
    "cat input.txt && echo made > output.txt && mkdir -p sub && touch sub/file && pwd",
    cwd,
  );
  assert.equal(result.content, `hello\n${cwd}\n[exit code: 0]`);
  assert.equal(readFileSync(join(cwd, "output.txt"), "utf8"), "made\n");
  assert.ok(existsSync(join(cwd, "sub", "file")));
});

test("writing outside the workspace fails, and /tmp is private", { skip: bwrapMissing }, async () => {
  const cwd = tempDir();
  // Outside both the workspace and /tmp (the clone itself may live under /tmp, which the sandbox replaces).
  const outside = join(home, `sandbox-probe-${process.pid}.txt`);
  const sibling = tempDir();
  // One stream (exec 2>&1), so errors and results come in order.
  const result = await runSandboxed(
    `exec 2>&1; echo x > ${outside}; echo $?; echo y > ${sibling}/escaped.txt; echo $?; echo z > /tmp/private.txt && cat /tmp/private.txt`,
    cwd,
  );
  assert.match(result.content, /Read-only file system/);
  assert.match(result.content, /^1$/m, "the write outside the workspace failed");
  assert.match(result.content, /z\n\[exit code: 0\]$/, "a private /tmp is writable");
  assert.equal(existsSync(outside), false);
  assert.equal(existsSync(join(sibling, "escaped.txt")), false, "another folder under /tmp is out of reach");
  assert.equal(existsSync("/tmp/private.txt"), false, "the sandbox's /tmp is not the real one");
});

test("~/.ssh and the harness's own folder are hidden; the rest of home is readable", {
  skip: bwrapMissing,
}, async () => {
  const cwd = tempDir();
  const result = await runSandboxed(
    `cat ${home}/visible.txt; cat ${home}/.ssh/id_test; ls -A ${home}/.ssh | wc -l; cat ${home}/.harness/settings.json`,
    cwd,
  );
  assert.match(result.content, /plain file in home/);
  assert.doesNotMatch(result.content, /PRIVATE KEY MATERIAL/);
  assert.match(result.content, /id_test: No such file or directory/);
  assert.match(result.content, /^0$/m, "~/.ssh looks empty");
  assert.match(result.content, /settings\.json: No such file or directory/);
});

test("a server on 127.0.0.1 is out of reach without the network, and reachable with --allow-network", {
  skip: bwrapMissing,
}, async () => {
  const server = createServer((_request, response) => response.end("secret data from the host\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fetchCommand = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
  try {
    const cwd = tempDir();
    const blocked = await runSandboxed(fetchCommand, cwd);
    assert.equal(blocked.isError, true);
    assert.match(blocked.content, /Connection refused|Network is unreachable/);
    assert.doesNotMatch(blocked.content, /secret data/);
    const allowed = await runSandboxed(fetchCommand, cwd, { network: true });
    assert.match(allowed.content, /secret data from the host\n\[exit code: 0\]$/);
  } finally {
    server.close();
  }
});

test("a timeout kills the whole sandboxed tree, including a process that left the group", {
  skip: bwrapMissing,
}, async () => {
  const cwd = tempDir();
  // Both would write a marker after 3 s if they survived; setsid puts one in a new session and process group.
  const result = await runSandboxed(
    "(sleep 3; touch survived) & setsid bash -c 'sleep 3; touch escaped' & sleep 30",
    cwd,
    { timeout: 1 },
  );
  assert.match(result.content, /\[timed out after 1s; the process tree was killed\]/);
  await new Promise((resolve) => setTimeout(resolve, 3500));
  assert.equal(existsSync(join(cwd, "survived")), false);
  assert.equal(existsSync(join(cwd, "escaped")), false);
});

test("an abort kills the sandboxed command", { skip: bwrapMissing }, async () => {
  const controller = new AbortController();
  const cwd = tempDir();
  // Aborted once the command is under way (the sandbox's first command also starts its helper).
  const abortOnceStarted = setInterval(() => existsSync(join(cwd, ".started")) && controller.abort(), 20);
  const result = await runSandboxed("echo before; touch .started; sleep 30", cwd, {
    signal: controller.signal,
  }).finally(() => clearInterval(abortOnceStarted));
  assert.equal(result.content, "before\n[interrupted by the user; the process tree was killed]");
});

test("credentials are not in the sandboxed command's environment", { skip: bwrapMissing }, async () => {
  const cwd = tempDir();
  const setup = setupPermissions(
    {},
    {
      cwd,
      env: { HOME: home, PATH: process.env.PATH, OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz", PLAIN: "kept" },
      harnessHome: join(home, ".harness"),
    },
  );
  const output = await bash.run(
    { command: "env" },
    { cwd, signal: new AbortController().signal, state: new Map(), env: setup.env, wrapCommand: setup.wrapCommand },
  );
  const content = typeof output === "string" ? output : output.content;
  assert.match(content, /^PLAIN=kept$/m);
  assert.doesNotMatch(content, /OPENAI_API_KEY|sk-proj/);
});

test("files that would run commands outside the sandbox next time stay read-only", { skip: bwrapMissing }, async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  mkdirSync(join(cwd, ".git", "hooks"), { recursive: true });
  const result = await runSandboxed(
    "echo '{}' > .harness/settings.json; touch .git/hooks/pre-commit; echo fine > ok.txt",
    cwd,
  );
  assert.match(result.content, /\.harness\/settings\.json: Read-only file system/);
  assert.match(result.content, /\.git\/hooks\/pre-commit.*Read-only file system/);
  assert.equal(existsSync(join(cwd, ".harness", "settings.json")), false);
  assert.equal(readFileSync(join(cwd, "ok.txt"), "utf8"), "fine\n");
});
