// The bash tool's commands run in one long-lived helper per sandbox (src/tools/commands/command-host.ts):
// real bash, real bwrap, the helper killed for real.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseArguments } from "../../src/core/tool.ts";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { closeHosted } from "../../src/tools/commands/command-host.ts";
import { tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

type Wrap = (argv: string[], cwd: string) => string[];

async function runBash(
  command: string,
  options: { cwd: string; signal?: AbortSignal; timeout?: number; wrapCommand?: Wrap; env?: Record<string, string> },
) {
  const parsed = parseArguments(
    bash,
    JSON.stringify({ command, ...(options.timeout ? { timeout: options.timeout } : {}) }),
  );
  assert.ok(parsed.ok);
  const output = await bash.run(parsed.input as { command: string }, {
    cwd: options.cwd,
    signal: options.signal ?? new AbortController().signal,
    state: new Map(),
    env: options.env,
    wrapCommand: options.wrapCommand,
  });
  return typeof output === "string" ? { content: output, isError: false } : output;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A home outside /tmp (the sandbox's /tmp is private), for sandboxed runs. */
const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
function sandboxed(cwd: string): { wrapCommand: Wrap; env: Record<string, string> } {
  const home = mkdtempSync("/var/tmp/harness-helper-home-");
  homes.push(home);
  mkdirSync(join(home, ".harness"));
  const setup = setupPermissions(
    { sandbox: "on" },
    { cwd, env: { HOME: home, PATH: process.env.PATH }, harnessHome: join(home, ".harness") },
  );
  assert.ok(setup.wrapCommand);
  return { wrapCommand: setup.wrapCommand, env: setup.env };
}

test("commands run in one helper process, not as children of the harness", async () => {
  const cwd = tempDir();
  const first = await runBash("echo $PPID", { cwd });
  const second = await runBash("echo $PPID", { cwd });
  const parentOf = (content: string) => Number(content.split("\n")[0]);
  assert.equal(parentOf(first.content), parentOf(second.content));
  assert.notEqual(parentOf(first.content), process.pid);
});

test("calls in flight together run at the same time", async () => {
  const cwd = tempDir();
  // Each waits (at most 10 s) for the other's marker: both see it only if they overlap.
  const waitFor = (mine: string, theirs: string) =>
    `touch ${mine}; for i in $(seq 200); do [ -e ${theirs} ] && break; sleep 0.05; done; [ -e ${theirs} ] && echo saw-${theirs}`;
  const [a, b] = await Promise.all([runBash(waitFor("a", "b"), { cwd }), runBash(waitFor("b", "a"), { cwd })]);
  assert.equal(a.content, "saw-b\n[exit code: 0]");
  assert.equal(b.content, "saw-a\n[exit code: 0]");
});

test("a timeout kills the command's whole tree through the helper, a process that left the group included", async () => {
  const cwd = tempDir();
  const result = await runBash("(sleep 2; touch survived) & setsid bash -c 'sleep 2; touch escaped' & sleep 30", {
    cwd,
    timeout: 1,
  });
  assert.equal(result.content, "[timed out after 1s; the process tree was killed]");
  await sleep(2500);
  assert.equal(existsSync(join(cwd, "survived")), false);
  assert.equal(existsSync(join(cwd, "escaped")), false);
});

test("an interrupt kills every running command's tree, and the helper goes on to run the next", async () => {
  const cwd = tempDir();
  const controller = new AbortController();
  const calls = ["one", "two"].map((name) =>
    runBash(`touch started-${name}; (sleep 2; touch survived-${name}) & sleep 30`, { cwd, signal: controller.signal }),
  );
  for (let waited = 0; !(existsSync(join(cwd, "started-one")) && existsSync(join(cwd, "started-two"))); waited += 20) {
    assert.ok(waited < 20_000, "the commands never started");
    await sleep(20);
  }
  controller.abort();
  for (const result of await Promise.all(calls))
    assert.equal(result.content, "[interrupted by the user; the process tree was killed]");
  const next = await runBash("echo still here", { cwd });
  assert.equal(next.content, "still here\n[exit code: 0]");
  await sleep(2500);
  assert.equal(existsSync(join(cwd, "survived-one")), false);
  assert.equal(existsSync(join(cwd, "survived-two")), false);
});

// The command waits a moment before killing its helper: a helper killed before it has reported the command as
// started cannot name that command's group to the harness, so unsandboxed those processes would outlive it (with
// a sandbox, bwrap's --die-with-parent ends them). That race is a known limit, written at the helper's spawn.
test("when the helper dies, its command says so and ends, and the next command starts a new helper", async () => {
  const cwd = tempDir();
  const killed = await runBash("sleep 0.3; kill -9 $PPID; sleep 2; touch survived", { cwd });
  assert.equal(killed.isError, true);
  assert.match(
    killed.content,
    /^\[the command helper stopped \(killed by SIGKILL\) while this command ran; its processes were killed\]\n/,
  );
  const next = await runBash("echo fine", { cwd });
  assert.equal(
    next.content,
    "fine\n[the command helper had stopped (killed by SIGKILL); a new one was started for this command]\n[exit code: 0]",
  );
  const after = await runBash("echo quiet", { cwd });
  assert.equal(after.content, "quiet\n[exit code: 0]");
  await sleep(2500);
  assert.equal(existsSync(join(cwd, "survived")), false);
});

test("a closed session's helper finishes the command it runs, then exits; the next command starts another", async () => {
  const cwd = tempDir();
  const running = runBash("touch started; sleep 1; echo finished; echo $PPID", { cwd });
  for (let waited = 0; !existsSync(join(cwd, "started")); waited += 20) {
    assert.ok(waited < 20_000, "the command never started");
    await sleep(20);
  }
  closeHosted(undefined);
  const result = await running;
  const [said, helper] = result.content.split("\n");
  assert.equal(said, "finished");
  for (let waited = 0; existsSync(`/proc/${helper}`) && !isZombie(Number(helper)); waited += 50) {
    assert.ok(waited < 10_000, "the helper did not exit after its session closed");
    await sleep(50);
  }
  const next = await runBash("echo $PPID", { cwd });
  assert.notEqual(next.content.split("\n")[0], helper);
  assert.match(next.content, /^\d+\n\[exit code: 0\]$/, "a helper closed on purpose is no news to the model");
});

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

test("sandboxed: the helper's death is reported and the next command gets a new sandbox", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  const sandbox = sandboxed(cwd);
  const killed = await runBash("kill -9 $PPID; sleep 30", { cwd, ...sandbox });
  // bwrap reports its child's death by SIGKILL as exit code 137.
  assert.match(
    killed.content,
    /^\[the command helper stopped \((killed by SIGKILL|exited with code 137)\) while this command ran; its processes were killed\]/,
  );
  const next = await runBash("echo fine > out.txt; cat out.txt; touch /outside 2>/dev/null || echo still sandboxed", {
    cwd,
    ...sandbox,
  });
  assert.match(
    next.content,
    /^fine\nstill sandboxed\n\[the command helper had stopped \((killed by SIGKILL|exited with code 137)\); a new one was started for this command\]\n\[exit code: 0\]$/,
  );
});

test("sandboxed: one sandbox serves the session, and what a command leaves behind ends with it", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  const sandbox = sandboxed(cwd);
  // A daemon that left the group and the session, as with a sandbox per command, does not outlive its command.
  const first = await runBash("setsid bash -c 'sleep 2; touch escaped' & echo $PPID; readlink /proc/1/ns/pid", {
    cwd,
    ...sandbox,
  });
  const second = await runBash("echo $PPID; readlink /proc/1/ns/pid", { cwd, ...sandbox });
  assert.equal(first.content, second.content, "both commands ran in the same sandbox, from the same helper");
  await sleep(2500);
  assert.equal(existsSync(join(cwd, "escaped")), false);
});

test("sandboxed: a protected path that appears mid-session is read-only for the next command", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  const sandbox = sandboxed(cwd);
  // A command may make a protected name in a new subfolder (mounts cannot name what does not exist yet)...
  const first = await runBash("mkdir -p made/.harness && echo '{}' > made/.mcp.json && echo planted", {
    cwd,
    ...sandbox,
  });
  assert.equal(first.content, "planted\n[exit code: 0]");
  mkdirSync(join(cwd, "user", ".harness"), { recursive: true }); // made outside the sandbox, e.g. by the user
  // ...but the next command gets a sandbox that has it read-only, as a sandbox of its own would.
  const second = await runBash(
    "touch made/.harness/settings.json; echo x > made/.mcp.json; touch user/.harness/settings.json",
    { cwd, ...sandbox },
  );
  assert.equal(second.content.match(/Read-only file system/g)?.length, 3, second.content);
  assert.equal(existsSync(join(cwd, "made", ".harness", "settings.json")), false);
  assert.equal(readFileSync(join(cwd, "made", ".mcp.json"), "utf8"), "{}\n");
  assert.equal(existsSync(join(cwd, "user", ".harness", "settings.json")), false);
});

/** A command that writes `frame` (hex) into its helper's stdout, as a command that took the helper's descriptor could. */
const forgeFrame = (hex: string) =>
  `perl -e 'my $pidfd = syscall(434, $ARGV[0] + 0, 0); die "no pidfd: $!" if $pidfd < 0; my $fd = syscall(438, $pidfd, 1, 0); die "no descriptor: $!" if $fd < 0; open(my $out, ">&=", $fd) or die; binmode $out; print $out pack("H*", "${hex}"); close $out' $PPID`;
const frameHex = (type: string, id: number, payload: Buffer) => {
  const head = Buffer.alloc(9);
  head[0] = type.charCodeAt(0);
  head.writeUInt32BE(id, 1);
  head.writeUInt32BE(payload.length, 5);
  return Buffer.concat([head, payload]).toString("hex");
};

test("sandboxed: a command that forges a 'started' frame for a host process, then kills its helper, does not get that process killed", {
  skip: needs("bwrap"),
}, async (t) => {
  const cwd = tempDir();
  const sandbox = sandboxed(cwd);
  const victim = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  t.after(() => victim.kill("SIGKILL"));
  assert.ok(victim.pid);
  // The session's first command has id 1: claim the victim's process group as its own.
  const attack = await runBash(
    `${forgeFrame(frameHex("S", 1, Buffer.from(String(victim.pid))))}; kill -9 $PPID; sleep 30`,
    { cwd, ...sandbox },
  );
  assert.match(attack.content, /the command helper stopped/);
  // A SIGKILL sent while the helper's death was handled would show within moments.
  const died = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 2000);
    victim.once("exit", () => resolve(true));
    t.after(() => clearTimeout(timer));
  });
  assert.equal(died, false, "the harness killed a host process the sandboxed command named");
});

test("sandboxed: a forged frame claiming gigabytes ends the helper at once, the harness does not wait for it", {
  skip: needs("bwrap"),
}, async () => {
  const cwd = tempDir();
  const sandbox = sandboxed(cwd);
  const head = `${frameHex("D", 1, Buffer.alloc(0)).slice(0, 10)}ffffffff`;
  const attack = await runBash(`${forgeFrame(head)}; head -c 50000000 /dev/zero; sleep 30`, { cwd, ...sandbox });
  assert.match(
    attack.content,
    /^\[the command helper stopped \(it sent a frame of 4294967295 bytes\) while this command ran; its processes were killed\]/,
  );
  const next = await runBash("echo fine", { cwd, ...sandbox });
  assert.match(
    next.content,
    /^fine\n\[the command helper had stopped \(it sent a frame of 4294967295 bytes\); a new one was started for this command\]/,
  );
});

test("a sandbox that failed to start is tried once more when its arguments have changed since (a host socket it was to cover vanished), never with the same ones", async () => {
  const cwd = tempDir();
  // A sandbox whose first start fails the way bwrap does when a socket it was to cover is gone
  // ("Can't create file at …/bus", exit 1 before the helper ran), then starts: the helper itself.
  let starts = 0;
  const vanishing: Wrap = (argv) => {
    starts += 1;
    return starts === 1
      ? ["/bin/sh", "-c", 'echo "bwrap: Can\'t create file at /var/tmp/x/bus" >&2; exit 1', "vanished"]
      : argv;
  };
  const retried = await runBash("echo ran", { cwd, wrapCommand: vanishing });
  assert.equal(retried.isError, false, retried.content);
  assert.match(retried.content, /^ran\n/);
  closeHosted(vanishing);
  // The same arguments failing again is a cause to report, with the run stopped.
  const broken: Wrap = () => ["/bin/sh", "-c", "echo 'bwrap: execvp node: No such file or directory' >&2; exit 1"];
  const failed = await runBash("echo never", { cwd, wrapCommand: broken });
  assert.equal(failed.isError, true);
  assert.match(failed.content, /could not start the command \(exited with code 1: bwrap: execvp node/);
  assert.ok("stopsRun" in failed && failed.stopsRun, "the run stops");
  closeHosted(broken);
});
