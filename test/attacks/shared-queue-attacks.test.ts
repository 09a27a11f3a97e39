// A stranger on the batch's Redis, from their side: they can reach the queue but hold no key
// (HARNESS_QUEUE_KEY, which cleanEnv gives the tests' batches and workers). They push jobs that
// name the worker's home folder with a setup that reads its SSH key, unsigned and with a made-up
// signature: the worker, as root and as nobody, runs none of them, says so once and counts them.
// They complete the batch's jobs with their own results (three `ok` lines for one task, a
// negative cost, another task's result), as does an insider whose key makes them look signed:
// the batch refuses and counts each, never crashes, and finishes with its predictions. The
// canary HOME lives under /var/tmp, not /tmp: the sandbox's private /tmp would hide a failure.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Queue, Worker } from "bullmq";
import { readPredictions } from "../../src/batch/predictions.ts";
import { sign } from "../../src/batch/queue/queue-signature.ts";
import { readLines, settled } from "../support/batch-files.ts";
import { cleanEnv, runCli, TEST_QUEUE_KEY, tempDir } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { signedJob, startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const PRIVATE_KEY = "CANARY PRIVATE KEY: never read by a stranger's job";
/** Longest wait for the worker to start: far above the seconds it takes. */
const START_LIMIT_MS = 90_000;
const POLL_MS = 100;

function connection(port: number) {
  return { host: "127.0.0.1", port, maxRetriesPerRequest: null };
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: a stranger's jobs, unsigned or forged, naming the worker's home, are never run`, {
    skip: needs("redis-server", "bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-shared-queue-home-");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), `${PRIVATE_KEY}\n`);
    const allowed = join(home, "jobs");
    mkdirSync(allowed);
    handTo(identity, home);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness"), OPENAI_API_KEY: "k" });
    const { port } = await startRedis();
    const name = `stranger-${identity}`;
    const queue = new Queue(name, { connection: connection(port) });
    onTestEnd(() => queue.close());
    let worker: ChildProcess | undefined;
    let stderr = "";
    const done = runCli(
      [
        "worker",
        "--queue",
        `redis://127.0.0.1:${port}/${name}`,
        "--provider",
        "openai",
        "--workdir",
        join(allowed, "copies"),
      ],
      {
        env,
        cwd: allowed,
        wrap: runAs(identity),
        onSpawn: (child) => {
          worker = child;
          child.stderr?.on("data", (chunk) => (stderr += chunk));
        },
      },
    );
    const deadline = Date.now() + START_LIMIT_MS;
    while (!stderr.includes("waiting for tasks") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));

    const leak = join(home, "leak.txt");
    const data = (id: string, cwd: string) => ({
      runId: "r1",
      attempt: 1,
      task: { id, prompt: "hi", cwd, setup: `cat ${home}/.ssh/id_rsa > ${leak}` },
      request: {},
    });
    // No key: unsigned, and with a signature made up (right length, wrong key).
    await queue.add("task", data("unsigned", home), { jobId: "unsigned" });
    await queue.add("task", { ...data("forged", allowed), sig: "ab".repeat(32) }, { jobId: "forged" });
    const otherKey = sign(Buffer.from("not-the-queue-key-0123456789"), "job", "other-key", data("other-key", allowed));
    await queue.add("task", otherKey, { jobId: "other-key" });
    // A signed job copied to another id does not verify there.
    await queue.add("task", signedJob("elsewhere", data("copied", allowed)), { jobId: "copied" });
    // An insider's signed job still may not name a host folder the worker does not allow.
    await queue.add("task", signedJob("home", data("home", home)), { jobId: "home" });

    for (const jobId of ["unsigned", "forged", "other-key", "copied"]) {
      const outcome = await settled(queue, jobId);
      assert.equal(outcome.state, "failed", jobId);
      assert.match(outcome.reason ?? "", /^refused by the worker: the job( is unsigned|'s signature is not one made)/);
    }
    const insider = await settled(queue, "home");
    assert.equal(insider.state, "failed");
    assert.match(insider.reason ?? "", /refused by the worker: cwd .* holds your home folder/);
    worker?.kill("SIGTERM");
    const stopped = await done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(existsSync(leak), false, "no setup ran");
    assert.equal(stopped.stderr.match(/such jobs are never run \(counted; said once\)/g)?.length, 1, stopped.stderr);
    assert.match(stopped.stderr, /refused 4 jobs not signed with this queue's key/);
  });
}

test("forged results, unsigned or signed but malformed, are refused and counted; the batch writes its predictions", {
  skip: needs("redis-server"),
}, async () => {
  const { port } = await startRedis();
  const dir = tempDir("shared-queue-batch-");
  const ids = ["unsigned", "made-up", "three-ok", "negative", "other-task", "not-run"];
  writeFileSync(join(dir, "tasks.jsonl"), ids.map((id) => JSON.stringify({ id, prompt: "hi" })).join("\n"));
  const out = join(dir, "results.jsonl");
  const batch = runCli(
    ["batch", "tasks.jsonl", "--queue", `redis://127.0.0.1:${port}/forged`, "--out", out, "--model", "fake-model"],
    { env: cleanEnv(), cwd: dir },
  );
  const key = Buffer.from(TEST_QUEUE_KEY);
  const ok = (id: string, runId: string, attempt: number) => ({
    id,
    runId,
    status: "ok",
    attempt,
    provider: "openai",
    model: "fake-model",
    api: "chat",
    thinking: null,
    harnessVersion: "9.9.9",
    answer: "solved",
    turns: 1,
    tokens: { input: 1, output: 1, cached: 0 },
    cost: 0,
    durationMs: 1,
    finishedAt: new Date().toISOString(),
    testExitCode: 0,
    sessionId: null,
    sessionPath: null,
    workdir: null,
    diff: "FORGED DIFF",
  });
  // The stranger's own worker completes each job with a result of their making.
  const stranger = new Worker(
    "forged",
    async (job) => {
      const { runId, attempt, task } = job.data as { runId: string; attempt: number; task: { id: string } };
      const jobId = job.id as string;
      const result = ok(task.id, runId, attempt);
      switch (task.id) {
        case "unsigned":
          return result;
        case "made-up":
          return { ...result, sig: "cd".repeat(32) };
        case "three-ok":
          return sign(key, "result", jobId, {
            ...result,
            attempt: attempt + 2,
            earlier: [result, { ...result, attempt: attempt + 1 }],
          });
        case "negative":
          return sign(key, "result", jobId, { ...result, cost: -5 });
        case "other-task":
          return sign(key, "result", jobId, { ...result, id: "unsigned" });
        default:
          return { notRun: "max_cost" }; // unsigned: the batch must not drop the task for it
      }
    },
    { connection: connection(port), concurrency: ids.length },
  );
  onTestEnd(() => stranger.close(true));
  const ended = await batch;
  await stranger.close(true);
  assert.equal(ended.code, 0, ended.stderr); // errors are results: the batch ran to its end
  for (const id of ids) assert.match(ended.stderr, new RegExp(`refused the result of ${id} \\(job `));
  assert.match(ended.stderr, /refused the result of unsigned .*: the result is unsigned/);
  assert.match(ended.stderr, /refused the result of made-up .*: the result's signature is not one made/);
  assert.match(ended.stderr, /refused the result of three-ok .*: an earlier attempt is "ok"/);
  assert.match(ended.stderr, /refused the result of negative .*: not a result: .*cost/);
  assert.match(ended.stderr, /refused the result of other-task .*: a result for task "unsigned", not "other-task"/);
  assert.match(ended.stderr, /6 results refused \(unsigned, forged or malformed\): recorded as errors/);
  const lines = readLines(out);
  assert.deepEqual(lines.map((line) => line.id).sort(), [...ids].sort(), "one line per task");
  for (const line of lines) {
    assert.equal(line.status, "error", line.id);
    assert.match(line.error ?? "", /^its result was refused: /);
  }
  const predictions = readPredictions(out, lines[0].runId);
  assert.equal(predictions.length, ids.length);
  assert.doesNotMatch(JSON.stringify(predictions), /FORGED DIFF/);
});
