// `harness batch --queue` and `harness worker` against a real redis-server (started here on a
// free loopback port, with no persistence): two workers, the first killed (SIGKILL) in the
// middle of a task; BullMQ's stalled-job check gives the task to the second, and every task
// ends up in results.jsonl exactly once.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { TaskResult } from "../../src/batch/task-result.ts";
import { pricedEnv, promptOf } from "../support/batch-files.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { type CliResult, cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { harnessesIn, isAlive } from "../support/process-finder.ts";
import { startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";

/** How often the test looks for the moment to act. */
const POLL_MS = 50;
/** How long Redis is stopped: longer than the lock was (10 s) and than many dead-worker checks (2 s). */
const STALL_MS = 12_000;
/** After the stall, how long the workers get to (wrongly) take tasks back before the tasks finish. */
const AFTER_STALL_MS = 6000;
/** Longest wait for a step of the story, so a broken queue fails the test rather than hanging it. */
const STEP_LIMIT_MS = 120_000;

const serve = fakeServerPerTest();

function waitFor(isTime: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + STEP_LIMIT_MS;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`gave up waiting for ${what}`));
      }
      if (!isTime()) return;
      clearInterval(timer);
      resolve();
    }, POLL_MS);
  });
}

test("queue mode: two workers, one killed mid-task; every task is finished exactly once", {
  skip: needs("redis-server"),
}, async () => {
  const { port } = await startRedis();
  const queueUrl = `redis://127.0.0.1:${port}/batch-test`;

  // The first task to call the model asks for a command (one call: 10 in, 5 out), and its second
  // call is held until the test has killed the worker running it.
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let victim: string | undefined;
  let heldPrompt: string | undefined;
  const step: ScriptStep = async (request) => {
    const prompt = promptOf(request);
    const isFirstCall = !request.body.messages.some((message: { role: string }) => message.role === "tool");
    victim ??= prompt;
    if (prompt === victim && isFirstCall && heldPrompt === undefined)
      return { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
    if (prompt === victim && heldPrompt === undefined) {
      heldPrompt = prompt;
      await gate;
    }
    return { reply: { text: `answer to ${prompt}` } };
  };
  const fake = await serve(Array.from({ length: 50 }, () => step));

  const dir = tempDir();
  writeFileSync(
    join(dir, "tasks.jsonl"),
    [1, 2, 3, 4].map((n) => JSON.stringify({ id: `q${n}`, prompt: `task ${n}` })).join("\n"),
  );
  const out = join(dir, "results.jsonl");
  // The batch names no base URL (a worker sends its key only where its own settings say).
  const batch = runCli(["batch", "tasks.jsonl", "--queue", queueUrl, "--out", out, "--model", "fake-model"], {
    env: cleanEnv(),
    cwd: dir,
  });

  let workerA: ChildProcess | undefined;
  // Both workers make their copies in one folder, as two workers on one machine would.
  const workdir = join(dir, "copies");
  const workerArgs = ["worker", "--queue", queueUrl, "--workdir", workdir, ...fakeFlags(fake)];
  // Default timings: the dead worker's task comes back because its connections closed, not
  // because its (5-minute) lock lapsed.
  const firstWorker = runCli([...workerArgs, "--concurrency", "1"], {
    env: pricedEnv(),
    onSpawn: (child) => (workerA = child),
  });
  const firstExit = firstWorker.then((result) => `worker A exited: ${result.code} ${result.stderr}`);
  let early = "";
  void Promise.race([batch.then((result) => `the batch exited: ${result.code} ${result.stderr}`), firstExit]).then(
    (message) => (early = message),
  );
  await waitFor(() => heldPrompt !== undefined || early !== "", "the first request");
  assert.equal(early, "", early);
  const orphans = harnessesIn(workdir);
  assert.equal(orphans.length, 1, "worker A's task harness");
  workerA?.kill("SIGKILL");
  const killed = await firstWorker;
  assert.equal(killed.signal, "SIGKILL");
  await waitFor(() => orphans.every((pid) => !isAlive(pid)), "worker A's task harness to end with it");
  release();

  let workerB: ChildProcess | undefined;
  const secondWorker = runCli([...workerArgs, "--concurrency", "2"], {
    env: pricedEnv(),
    onSpawn: (child) => (workerB = child),
  });
  let collected: CliResult;
  try {
    collected = await batch;
  } finally {
    workerB?.kill("SIGTERM");
  }
  const stopped = await secondWorker;
  assert.equal(collected.code, 0, `${collected.stderr}\nworker B:\n${stopped.stderr}`);
  assert.equal(stopped.code, 0, stopped.stderr);

  assert.ok(existsSync(out));
  const results: TaskResult[] = readFileSync(out, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const heldId = `q${heldPrompt?.split(" ")[1]}`;
  const oneCall = { input: 10, output: 5, cached: 0 };
  assert.deepEqual(
    results.map((result) => [result.id, result.status, result.attempt, result.tokens, result.cost]).sort(),
    [1, 2, 3, 4].flatMap((n) => [
      // Its call in flight at the kill too, read from its session file: estimated at 23 tokens in.
      ...(`q${n}` === heldId ? [[`q${n}`, "crashed", 1, { input: 33, output: 5, cached: 0 }, 0.000043]] : []),
      [`q${n}`, "ok", `q${n}` === heldId ? 2 : 1, oneCall, 0.00002],
    ]),
    "every task once, and the dead worker's attempt with its one call (10 in, 5 out, $0.00002) and the one in flight",
  );
  const lost = results.find((result) => result.status === "crashed") as TaskResult;
  assert.match(
    lost.error ?? "",
    /^its worker \(\S+\) stopped while this attempt ran; recorded when the job came back$/,
  );
  assert.equal(lost.workdir, join(workdir, lost.runId, heldId), "the lost attempt ran in the first copy");
  assert.equal(results.at(-1)?.id, heldId, "written with the retry's line, just before it");
  assert.match(killed.stderr, new RegExp(`started ${heldId}\\n`), "worker A had the task when it was killed");
  assert.match(stopped.stderr, new RegExp(`worker \\S+ is gone: ${heldId} is back in the queue\\n`));
  assert.match(stopped.stderr, new RegExp(`started ${heldId}\\n`), "worker B took it back");
  const held = results.find((result) => result.id === heldId && result.status === "ok") as TaskResult;
  assert.equal(held.workdir, join(workdir, held.runId, `${heldId}.2`), "the retry ran in a fresh copy of its own");
  // Each finished attempt's trajectory is on its worker's disk, beside its working copies.
  for (const result of results.filter((line) => line.status === "ok")) {
    const path = join(workdir, "trajectories", result.runId, `${result.id}.${result.attempt}.traj.json`);
    const trajectory = JSON.parse(readFileSync(path, "utf8"));
    assert.deepEqual(
      [trajectory.instance_id, trajectory.info.exit_status, trajectory.info.model_stats.api_calls],
      [result.id, "ok", result.turns],
    );
  }
  const perPrompt = fake.requests.map(promptOf);
  for (const n of [1, 2, 3, 4])
    assert.equal(perPrompt.filter((prompt) => prompt === `task ${n}`).length, `task ${n}` === heldPrompt ? 3 : 1);
});

test("queue mode: Redis paused (SIGSTOP) for longer than a check or the old 10 s lock reruns nothing that is still running", {
  skip: needs("redis-server"),
}, async () => {
  const redis = await startRedis();
  const queueUrl = `redis://127.0.0.1:${redis.port}/stall-test`;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const step: ScriptStep = async (request) => {
    await gate;
    return { reply: { text: `answer to ${promptOf(request)}` } };
  };
  const fake = await serve(Array.from({ length: 20 }, () => step));
  const dir = tempDir();
  writeFileSync(
    join(dir, "tasks.jsonl"),
    [1, 2, 3].map((n) => JSON.stringify({ id: `s${n}`, prompt: `task ${n}` })).join("\n"),
  );
  const batch = runCli(["batch", "tasks.jsonl", "--queue", queueUrl, "--model", "fake-model"], {
    env: cleanEnv(),
    cwd: dir,
  });
  const workers = [1, 2].map(() => {
    let child: ChildProcess | undefined;
    const done = runCli(["worker", "--queue", queueUrl, "--concurrency", "2", ...fakeFlags(fake)], {
      env: cleanEnv(),
      onSpawn: (spawned) => (child = spawned),
    });
    return { done, stop: () => child?.kill("SIGTERM") };
  });
  await waitFor(() => fake.requests.length === 3, "three running tasks");
  redis.process.kill("SIGSTOP");
  await new Promise((resolve) => setTimeout(resolve, STALL_MS));
  redis.process.kill("SIGCONT");
  // Time for the checks that would misfire after a stall: several rounds of each.
  await new Promise((resolve) => setTimeout(resolve, AFTER_STALL_MS));
  release();
  const collected = await batch;
  for (const worker of workers) worker.stop();
  const logs = await Promise.all(workers.map((worker) => worker.done));
  assert.equal(collected.code, 0, collected.stderr);
  for (const log of logs) assert.doesNotMatch(log.stderr, /back in the queue/);
  assert.deepEqual(fake.requests.map(promptOf).sort(), ["task 1", "task 2", "task 3"], "each task ran once");
});
