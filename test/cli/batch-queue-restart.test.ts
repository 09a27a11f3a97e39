// Redis restarted empty in the middle of a queue batch (a real redis-server, killed and started
// again on its port without its data): the batch and the workers see the marker gone and say so,
// the workers put their tries back from their own disks, the tries running at the time finish on
// their workers and their results reach the batch from the workers' stored results, though
// their jobs are gone: every task has one result, none ran twice, and every call's spend is recorded.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pricedEnv, promptOf, readLines } from "../support/batch-files.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";

const TASKS = 4;
/** Longest wait for a state the test waits on: far above the seconds it takes. */
const LIMIT_MS = 120_000;
const POLL_MS = 100;

const serve = fakeServerPerTest();

async function waitFor(isTime: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + LIMIT_MS;
  while (!isTime()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

test("Redis restarted empty mid-run: said, reconciled from the workers' records; each task once, no spend lost", {
  skip: needs("redis-server", "redis-cli"),
}, async () => {
  let redis = await startRedis();
  const { port } = redis;
  const queueUrl = `redis://127.0.0.1:${port}/restart-test`;
  const keysLike = (pattern: string) =>
    execFileSync("redis-cli", ["-p", String(port), "--scan", "--pattern", pattern], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
  // Each task: a command, then an answer held back until Redis has been restarted.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  const step: ScriptStep = async (request) => {
    if (!request.body.messages.some((message: { role: string }) => message.role === "tool"))
      return { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
    waiting++;
    await released;
    return { reply: { text: `done ${promptOf(request)}` } };
  };
  const fake = await serve(Array.from({ length: 40 }, () => step));
  const dir = tempDir();
  const workers = [1, 2].map((n) => {
    let child: ChildProcess | undefined;
    const workdir = join(dir, `worker-${n}`);
    const done = runCli(
      ["worker", "--queue", queueUrl, "--concurrency", "2", "--workdir", workdir, ...fakeFlags(fake)],
      { env: pricedEnv(), onSpawn: (spawned) => (child = spawned) },
    );
    return { done, workdir, stop: () => child?.kill("SIGTERM") };
  });
  try {
    const ids = Array.from({ length: TASKS }, (_, index) => `r${index + 1}`);
    writeFileSync(
      join(dir, "tasks.jsonl"),
      `${ids.map((id) => JSON.stringify({ id, prompt: `task ${id}` })).join("\n")}\n`,
    );
    const batch = runCli(["batch", "tasks.jsonl", "--queue", queueUrl, "--model", "fake-model"], {
      env: pricedEnv(),
      cwd: dir,
    });
    await waitFor(() => waiting === TASKS, "every task to wait on its second call");
    redis.process.kill("SIGKILL");
    await new Promise((resolve) => redis.process.once("exit", resolve));
    redis = await startRedis([], port);
    assert.deepEqual(keysLike("*harness-marker"), [], "Redis came back empty");
    // The workers put their tries back from their disks; the batch sets its marker again.
    await waitFor(
      () => keysLike("*harness-tries:*").length === TASKS && keysLike("*harness-marker").length === 1,
      "the workers' tries back in Redis",
    );
    release();
    const ended = await batch;
    assert.equal(ended.code, 0, ended.stderr);
    assert.match(ended.stderr, /Redis lost the queue's state \(its marker is gone: restarted empty\?\)/);
    assert.match(ended.stderr, /Redis lost the queue's state 1 time; reconciled from the workers' records/);
    const lines = readLines(join(dir, "results.jsonl"));
    assert.deepEqual(
      lines.map((line) => [line.id, line.status, line.attempt, line.answer]).sort(),
      ids.map((id) => [id, "ok", 1, `done task ${id}`]),
      "one result per task, from the try that ran when Redis went",
    );
    assert.equal(fake.requests.length, TASKS * 2, "no task ran twice");
    const recorded = lines.reduce((sum, line) => sum + (line.cost ?? 0), 0);
    assert.equal(Number(recorded.toFixed(6)), Number((TASKS * 2 * 0.00002).toFixed(6)), "every call's spend");
    const stored = workers.flatMap((worker) =>
      readdirSync(join(worker.workdir, ".harness-journal")).filter((name) => name.endsWith(".done.json")),
    );
    assert.equal(stored.length, TASKS, "each result also on its worker's disk");
    for (const worker of workers) worker.stop();
    const stopped = await Promise.all(workers.map((worker) => worker.done));
    for (const worker of stopped)
      assert.match(worker.stderr, /Redis lost the queue's state .*; put back 0 results and 2 tries/);
  } finally {
    for (const worker of workers) worker.stop();
    await Promise.all(workers.map((worker) => worker.done));
  }
});
