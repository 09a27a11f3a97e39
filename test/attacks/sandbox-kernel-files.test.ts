// Attacks on the host kernel from inside the bubblewrap sandbox, as root and as nobody. Root in
// the sandbox's user namespace is uid 0 to the kernel's sysctl checks: with a writable /proc it
// could set `kernel.core_pattern = |<workspace>/x`, which runs x as root on the host at the next
// crash. The test never writes a kernel setting, even to probe: every writable-looking file under
// /proc is opened O_WRONLY (which a read-only mount refuses before any write) and, should one open,
// closed at once without a byte written and reported. The host name is only ever set inside a UTS
// namespace the test has checked is not the host's.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { WrapCommand } from "../../src/core/tool.ts";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { bwrapWrapper } from "../../src/sandbox/bwrap.ts";
import { LINUX_KERNEL_FILES } from "../../src/sandbox/kernel-files.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { tempDir } from "../support/helpers.ts";
import { asRootOnly, canaryHomeDir, IDENTITIES, type Identity, runAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

/** Runs `command` with the bash tool in the sandbox the CLI would set up, as `identity`. */
function sandboxed(identity: Identity, options: { network?: boolean } = {}) {
  const home = canaryHomeDir("harness-kernel-home-");
  const cwd = tempDir();
  chmodSync(cwd, 0o755); // so nobody can run the walker in it
  const env = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const setup = setupPermissions({ allowNetwork: options.network }, { cwd, env, harnessHome: join(home, ".harness") });
  assert.equal(setup.policy.sandbox, "on");
  return { cwd, run: runner(identity, cwd, setup.wrapCommand as WrapCommand, setup.env) };
}

function runner(identity: Identity, cwd: string, inner: WrapCommand, env?: Record<string, string>) {
  const wrapCommand: WrapCommand = (argv, dir) => [...runAs(identity), ...inner(argv, dir)];
  return async (command: string) => {
    const output = await bash.run(
      { command },
      { cwd, signal: new AbortController().signal, state: new Map(), env, wrapCommand },
    );
    return typeof output === "string" ? output : output.content;
  };
}

/**
 * Walks `roots` inside the sandbox (in /proc every process's folder, its own through /proc/self
 * included, or with `ownProcessOnly` its own alone; symlinks are not followed: /proc/self/fd/N
 * leads to the command's own pipes) and tries to open each file with a write bit for writing,
 * never writing. Reads the `masked` paths. Prints one JSON line.
 */
const WALKER = String.raw`
const fs = require("fs");
const { O_WRONLY, O_NONBLOCK, O_NOFOLLOW, O_NOCTTY } = fs.constants;
const { roots, masked, ownProcessOnly } = JSON.parse(process.argv[2]);
const result = { self: fs.readlinkSync("/proc/self"), checked: 0, openedCount: 0, opened: [], refused: {}, gone: 0, unexpected: [], masked: {} };
/** The first few of a list, so the line stays within the bash tool's output. */
const note = (list, item) => list.length < 20 && list.push(item);
function walk(dir) {
  let names;
  try { names = fs.readdirSync(dir); } catch { return; } // a task that ended, or a folder not ours to list
  // The kernel's settings first, the processes' folders after: a failure names those first.
  if (dir === "/proc") names.sort((a, b) => /^\d/.test(a) - /^\d/.test(b));
  for (const name of names) {
    const path = dir + "/" + name;
    if (ownProcessOnly && dir === "/proc" && /^\d+$/.test(name) && name !== result.self) continue;
    let stat;
    try { stat = fs.lstatSync(path); } catch { result.gone++; continue; }
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) { walk(path); continue; }
    if ((stat.mode & 0o222) === 0) continue;
    result.checked++;
    if (path === "/proc/sys/kernel/core_pattern") result.sawCorePattern = true;
    if (path === "/proc/" + result.self + "/oom_score_adj") result.sawOwnProcess = true;
    if (path === "/proc/sys/net/ipv4/ip_forward") result.sawHostNet = true;
    if (path.startsWith("/sys/")) result.sysChecked = (result.sysChecked ?? 0) + 1;
    let fd;
    try {
      fd = fs.openSync(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
    } catch (error) {
      if (["EROFS", "EACCES", "EPERM"].includes(error.code)) result.refused[error.code] = (result.refused[error.code] ?? 0) + 1;
      else if (["ENOENT", "ESRCH"].includes(error.code)) result.gone++;
      else note(result.unexpected, path + " " + error.code);
      continue;
    }
    fs.closeSync(fd); // never a write: a kernel setting is never changed, even to probe
    result.openedCount++;
    note(result.opened, path);
  }
}
for (const root of roots) walk(root);
for (const path of masked) {
  try { result.masked[path] = fs.statSync(path).isDirectory() ? fs.readdirSync(path).length : fs.readFileSync(path).length; }
  catch (error) { result.masked[path] = error.code; }
}
console.log(JSON.stringify(result));
`;

/** What the walker found, with the assertions every walk must pass. */
async function walkAndCheck(
  t: { diagnostic(message: string): void },
  run: (command: string) => Promise<string>,
  folder: string,
  options: { roots: string[]; ownProcessOnly?: boolean },
) {
  writeFileSync(join(folder, "walk.cjs"), WALKER);
  const masked = LINUX_KERNEL_FILES.masked.filter((path) => existsSync(path));
  const output = await run(`node ${join(folder, "walk.cjs")} '${JSON.stringify({ ...options, masked })}'`);
  const line = output.split("\n").find((text) => text.startsWith("{"));
  assert.ok(line, output);
  const result = JSON.parse(line);
  t.diagnostic(`tried ${result.checked}, refused ${JSON.stringify(result.refused)}, gone ${result.gone}`);
  // Not a walk of an empty or missing /proc: the settings and the command's own files were tried.
  assert.equal(result.sawCorePattern, true, "/proc/sys/kernel/core_pattern was tried");
  assert.equal(result.sawOwnProcess, true, "the walker's own /proc/<pid>/oom_score_adj was tried");
  assert.ok(result.checked > 500, `only ${result.checked} writable-looking files`);
  assert.deepEqual(result.opened, [], `${result.openedCount} files opened for writing, among them`);
  assert.deepEqual(result.unexpected, []);
  assert.ok(result.refused.EROFS > 0, JSON.stringify(result.refused));
  // Docker's masked paths read as empty, or not at all (/dev/null on a nodev mount).
  for (const path of masked) assert.ok([0, "EACCES"].includes(result.masked[path]), `${path} is masked`);
  return result;
}

for (const identity of IDENTITIES) {
  test(`as ${identity}, no file under the sandbox's /proc opens for writing (/proc/sys, /proc/self; network cut or shared)`, {
    skip: needs("bwrap", "setpriv") || asRootOnly,
  }, async (t) => {
    const { cwd, run } = sandboxed(identity);
    await walkAndCheck(t, run, cwd, { roots: ["/proc"] });
    // With the network allowed, /proc/sys/net is the host network's (ip_forward, ...).
    const online = sandboxed(identity, { network: true });
    const result = await walkAndCheck(t, online.run, online.cwd, { roots: ["/proc"] });
    assert.ok(result.sawHostNet, "/proc/sys/net/ipv4/ip_forward was tried");
  });

  test(`as ${identity}, with / as the workspace (--allow-home), /proc and /sys are still read-only`, {
    skip: needs("bwrap", "setpriv") || asRootOnly,
  }, async (t) => {
    // The workspace's writable bind of / brings the host's /proc and /sys back with it. The policy
    // is built here: the CLI's scan of all of / for .git would run out of time and fail closed
    // with a read-only workspace, which would hide what this checks (a small container's / passes).
    const home = canaryHomeDir("harness-kernel-root-ws-");
    const policy = { workspace: "/", hidden: [], socketFolders: [], protectedNames: [], network: false };
    const run = runner(identity, home, bwrapWrapper(policy), { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    // Other processes' folders are left alone: were /proc the host's, they would be the host's processes.
    const result = await walkAndCheck(t, run, home, { roots: ["/proc", "/sys"], ownProcessOnly: true });
    assert.ok(result.sysChecked > 0, "files under /sys were tried");
  });

  test(`as ${identity}, the sandbox has its own UTS namespace: a host name set inside never reaches the host`, {
    skip: needs("bwrap", "setpriv") || asRootOnly,
  }, async () => {
    const hostUts = readlinkSync("/proc/self/ns/uts");
    const before = hostname();
    const { run } = sandboxed(identity);
    // sethostname only once the namespace is known to be another one.
    const output = await run(
      [
        "exec 2>&1",
        'uts=$(readlink /proc/self/ns/uts); echo "uts=$uts"',
        `if [ "$uts" != '${hostUts}' ]; then hostname harness-sandbox-probe; echo "set=$?"; fi`,
        'echo "name=$(hostname)"',
        // Ordinary uses of /proc still work with it read-only.
        "echo via-stdin | cat /dev/stdin; cat <(echo via-procsub); grep -c ^Pid: /proc/self/status",
      ].join("\n"),
    );
    const inside = output.match(/^uts=(.+)$/m)?.[1];
    assert.ok(inside?.startsWith("uts:["), output);
    assert.notEqual(inside, hostUts, "the sandbox shares the host's UTS namespace");
    assert.match(output, /^name=.+$/m);
    assert.match(output, /^via-stdin$/m);
    assert.match(output, /^via-procsub$/m);
    assert.match(output, /^1$/m);
    assert.equal(hostname(), before);
  });
}
