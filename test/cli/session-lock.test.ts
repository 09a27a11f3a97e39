// Two processes continuing one session interleaved their turns, and the next -c replaced real tool
// results with "interrupted". A session is locked by the process writing it: a second resume of a
// live session says who holds it and exits 1 (the contract's "the run failed": the command was
// right, the moment was not) without touching the file; a lock left by a killed process, or one
// whose pid now belongs to another process, is stale and taken over; every way a run ends gives
// the lock back. Through the built CLI against the fake server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import {
  CLI,
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  runCli,
  tempDir,
  withoutSandboxWarning,
} from "../support/helpers.ts";
import { killAtTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

/** Waits (bounded) until `check` holds. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 60_000; !check(); ) {
    if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A run of the CLI left going in the background (killed at the test's end if it is still there). */
function startRun(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = killAtTestEnd(spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] }));
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

const filesEndingIn = (home: string, ext: string) =>
  existsSync(join(home, "sessions")) ? readdirSync(join(home, "sessions")).filter((name) => name.endsWith(ext)) : [];

/** The one line a refused resume prints (after the sandbox's warning, if any). */
const busyLine = (id: string, pid: number) =>
  new RegExp(
    `^harness: session ${id} is in use by another harness \\(pid ${pid}, since [^)]+\\); wait for it to end, or continue a copy of it: harness --fork -r ${id}\\n$`,
  );

/** A session made by one whole run: a bash call with its real result, then an answer. */
async function storedSession(fakeSteps: ScriptStep[]) {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_echo", name: "bash", arguments: { command: "echo real-result" } }] } },
    { reply: { text: "listed" } },
    ...fakeSteps,
  ]);
  const env = cleanEnv();
  const home = env.HARNESS_HOME as string;
  const cwd = tempDir();
  const made = await runCli([...fakeFlags(fake), "--sandbox", "off", "-y", "-p", "run echo"], { env, cwd });
  assert.equal(made.code, 0, made.stderr);
  const [name] = filesEndingIn(home, ".jsonl");
  return { fake, env, home, cwd, id: name.replace(/\.jsonl$/, ""), path: join(home, "sessions", name) };
}

test("a run's new session is locked while it runs: harness sessions marks it in use, a second -c names its pid, exits 1 and writes nothing; the lock goes with the run", async () => {
  let answerFirst = () => {};
  const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
  const fake = await serve([
    async () => {
      await firstAnswered;
      return { reply: { text: "first done" } };
    },
  ]);
  const env = cleanEnv();
  const home = env.HARNESS_HOME as string;
  const cwd = tempDir();
  const first = startRun([...fakeFlags(fake), "-p", "a long task"], env, cwd);
  await until("the first run's request", () => fake.requests.length === 1);
  const [file] = filesEndingIn(home, ".jsonl");
  const id = file.replace(/\.jsonl$/, "");
  const lock = JSON.parse(readFileSync(join(home, "sessions", `${id}.lock`), "utf8"));
  assert.equal(lock.pid, first.child.pid);
  const before = readFileSync(join(home, "sessions", file), "utf8");

  const second = await runCli([...fakeFlags(fake), "-c", "-p", "interleave"], { env, cwd });
  assert.equal(second.code, 1, second.stderr);
  assert.match(withoutSandboxWarning(second.stderr), busyLine(id, first.child.pid as number));
  assert.equal(fake.requests.length, 1, "the second run asked the model nothing");
  assert.equal(readFileSync(join(home, "sessions", file), "utf8"), before, "nor wrote to the session");

  const listedBusy = await runCli(["sessions"], { env });
  assert.match(
    listedBusy.stdout,
    new RegExp(`^${id}  .*  1 turn  in use \\(pid ${first.child.pid}\\)  a long task$`, "m"),
  );

  answerFirst();
  assert.deepEqual(await first.exited, { code: 0, signal: null }, first.output());
  assert.deepEqual(filesEndingIn(home, ".lock"), [], "the lock went with the run");
  const listedFree = await runCli(["sessions"], { env });
  assert.match(listedFree.stdout, new RegExp(`^${id}  .*  1 turn  a long task$`, "m"), "no longer in use");
  const entries = readFileSync(join(home, "sessions", file), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    entries.filter((entry) => entry.type === "message").map((entry) => entry.message.role),
    ["user", "assistant"],
    "the session holds the first run's turn only",
  );
});

test("two processes resume one session: the second (-c, -r, undo) is refused and the file stays as it was; after kill -9 of the first, -c takes the stale lock", async () => {
  const { fake, env, home, cwd, id, path } = await storedSession([
    { hang: true }, // the first resume's model call never answers: it holds the session
    { reply: { text: "picked up" } },
  ]);
  const first = startRun([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "a long task"], env, cwd);
  await until("the first resume's request", () => fake.requests.length === 3);
  const lockFile = join(home, "sessions", `${id}.lock`);
  assert.equal(JSON.parse(readFileSync(lockFile, "utf8")).pid, first.child.pid);
  const before = readFileSync(path, "utf8");

  for (const args of [
    [...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "interleave"],
    [...fakeFlags(fake), "--sandbox", "off", "-r", id.slice(0, 12), "-p", "interleave"],
    ["undo"],
  ]) {
    const refused = await runCli(args, { env, cwd });
    assert.equal(refused.code, 1, `${args.join(" ")}: ${refused.stderr}`);
    assert.match(refused.stderr, busyLine(id, first.child.pid as number), args.join(" "));
    assert.equal(refused.stdout, "");
  }
  assert.equal(fake.requests.length, 3, "no refused run asked the model");
  assert.equal(readFileSync(path, "utf8"), before, "the session file is byte for byte as the first resume left it");

  first.child.kill("SIGKILL");
  assert.deepEqual(await first.exited, { code: null, signal: "SIGKILL" });
  assert.equal(JSON.parse(readFileSync(lockFile, "utf8")).pid, first.child.pid, "kill -9 leaves its lock behind");

  const resumed = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "carry on"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "picked up\n");
  assert.deepEqual(filesEndingIn(home, ".lock"), []);
  assert.deepEqual(filesEndingIn(home, ".jsonl"), [`${id}.jsonl`], "the same session went on");
  const after = readFileSync(path, "utf8");
  assert.ok(after.startsWith(before), "appended to, never rewritten");
  const lines = after
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(lines.filter((line) => line.type === "interrupted").length, 0);
  const toolResults = lines.filter((line) => line.type === "message" && line.message.role === "tool");
  assert.deepEqual(
    toolResults.map((line) => [line.message.toolCallId, line.message.content]),
    [["call_echo", "real-result\n[exit code: 0]"]],
    "the real tool result is kept",
  );
  const sent = fake.requests[3].body.messages.filter((m: { role: string }) => m.role !== "system");
  assert.deepEqual(
    sent.map((m: { role: string; content: string }) => (m.role === "user" ? `user: ${m.content}` : m.role)),
    ["user: run echo", "assistant", "tool", "assistant", "user: a long task", "user: carry on"],
  );
});

test("every way a run ends gives the lock back: done, a failed call (exit 1), Ctrl-C (exit 130)", async () => {
  const { fake, env, home, cwd } = await storedSession([
    { status: 400, body: { error: { message: "bad request" } } },
    { hang: true },
  ]);
  const failed = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "fail"], { env, cwd });
  assert.equal(failed.code, 1, failed.stderr);
  assert.deepEqual(filesEndingIn(home, ".lock"), [], "after a failed call");

  const interrupted = startRun([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "hang"], env, cwd);
  await until("the hanging request", () => fake.requests.length === 4);
  assert.equal(filesEndingIn(home, ".lock").length, 1, "held while it runs");
  interrupted.child.kill("SIGINT");
  assert.deepEqual(await interrupted.exited, { code: 130, signal: null }, interrupted.output());
  assert.deepEqual(filesEndingIn(home, ".lock"), [], "after Ctrl-C");
  assert.deepEqual(filesEndingIn(home, ".tmp"), [], "nothing left beside it");
});

test("a lock whose pid now belongs to another process, or from an earlier boot, is stale; a live owner's is not", async () => {
  const { fake, env, home, cwd, id } = await storedSession([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const lockFile = join(home, "sessions", `${id}.lock`);
  const since = "2026-01-01T00:00:00.000Z";
  // This test's own process is alive: a lock naming its pid with another start time is a reused pid.
  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, since, processStart: "1" }));
  const reused = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "reused pid"], { env, cwd });
  assert.equal(reused.code, 0, reused.stderr);
  assert.equal(reused.stdout, "one\n");

  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, since, bootId: "an-earlier-boot" }));
  const rebooted = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "after a reboot"], { env, cwd });
  assert.equal(rebooted.code, 0, rebooted.stderr);
  assert.equal(rebooted.stdout, "two\n");
  assert.deepEqual(filesEndingIn(home, ".lock"), []);

  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, since })); // nothing says it is not this process
  const held = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "held"], { env, cwd });
  assert.equal(held.code, 1, held.stderr);
  assert.match(held.stderr, busyLine(id, process.pid));
  assert.equal(fake.requests.length, 4);
});

test("--fork continues a copy under a new id with the same history, its header naming the origin; the origin, held by a live run, stays byte for byte", async () => {
  const { fake, env, home, cwd, id, path } = await storedSession([
    { hang: true }, // the origin's own run holds it
    { reply: { text: "the copy goes on" } },
  ]);
  const holder = startRun([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "a long task"], env, cwd);
  await until("the holder's request", () => fake.requests.length === 3);
  const before = readFileSync(path, "utf8");

  const fork = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "--fork", "-p", "go on in a copy"], {
    env,
    cwd,
  });
  assert.equal(fork.code, 0, fork.stderr);
  assert.equal(fork.stdout, "the copy goes on\n");
  const sent = fake.requests[3].body.messages.filter((m: { role: string }) => m.role !== "system");
  assert.deepEqual(
    sent.map((m: { role: string; content: string }) => (m.role === "user" ? `user: ${m.content}` : m.role)),
    ["user: run echo", "assistant", "tool", "assistant", "user: a long task", "user: go on in a copy"],
    "the copy starts from the session as it stood, the holder's prompt included",
  );
  assert.equal(readFileSync(path, "utf8"), before, "the origin is untouched");
  const [copyName] = filesEndingIn(home, ".jsonl").filter((name) => name !== `${id}.jsonl`);
  const copyLines = readFileSync(join(home, "sessions", copyName), "utf8").split("\n");
  const originLines = before.split("\n");
  const [copyHeader, originHeader] = [JSON.parse(copyLines[0]), JSON.parse(originLines[0])];
  assert.equal(copyHeader.forkedFrom, id);
  assert.equal(`${copyHeader.id}.jsonl`, copyName);
  assert.notEqual(copyHeader.id, id);
  assert.deepEqual(
    { ...copyHeader, id: id, startedAt: originHeader.startedAt, forkedFrom: undefined },
    { ...originHeader, forkedFrom: undefined },
    "the header is the origin's but for id, start and origin",
  );
  assert.deepEqual(
    copyLines.slice(1, originLines.length - 1),
    originLines.slice(1, -1),
    "the origin's lines, as they are",
  );
  assert.deepEqual(
    filesEndingIn(home, ".lock"),
    [`${id}.lock`],
    "the copy's lock went with its run; the holder keeps its own",
  );
  assert.equal(JSON.parse(readFileSync(join(home, "sessions", `${id}.lock`), "utf8")).pid, holder.child.pid);

  const alone = await runCli([...fakeFlags(fake), "--fork", "-p", "copy what?"], { env, cwd });
  assert.equal(alone.code, 2, alone.stderr);
  assert.equal(alone.stderr, "harness: --fork goes with -c or -r <id>: it continues a copy of that session\n");
  assert.equal(fake.requests.length, 4);
});
