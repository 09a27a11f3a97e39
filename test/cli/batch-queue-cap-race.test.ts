// The cap race of batch-queue-cost.test.ts, forced rather than left to timing: when --max-cost
// withdraws the waiting jobs, a worker can take one between the batch's read of its state and its
// removal; that worker then completes it as "not run" after the batch ended, and the next run with
// a raised cap (the same run, so the same job id) finds that stale "not run". Here the test leaves
// that very state in the real Redis itself, through the same keys a worker uses (the job id of the
// run's task and attempt, its result signed with the queue's key), then runs the raised batch: it
// must run the task and never exit 0 with its result missing.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { folderNameOf } from "../../src/batch/batch-task.ts";
import { jobIdOf } from "../../src/batch/queue/queue-job.ts";
import { sign } from "../../src/batch/queue/queue-signature.ts";
import { loadBullmq, parseQueueUrl } from "../../src/batch/queue/queue-target.ts";
import { NOT_RUN } from "../../src/batch/queue/queue-try.ts";
import { pricedEnv, promptOf, readLines } from "../support/batch-files.ts";

import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("a raised --max-cost run that finds its task's stale 'not run' (a job a worker took as the cap withdrew it) runs the task", {
  skip: needs("redis-server"),
}, async () => {
  const { port } = await startRedis();
  const queueUrl = `redis://127.0.0.1:${port}/cap-race`;
  const fake = await serve(
    Array.from({ length: 20 }, () => (request) => ({ reply: { text: `answer to ${promptOf(request)}` } })),
  );
  const startWorker = () => {
    let child: ChildProcess | undefined;
    const done = runCli(["worker", "--queue", queueUrl, "--concurrency", "1", ...fakeFlags(fake)], {
      env: pricedEnv(),
      onSpawn: (spawned) => (child = spawned),
    });
    return { done, stop: () => child?.kill("SIGTERM") };
  };
  const dir = tempDir();
  writeFileSync(
    join(dir, "tasks.jsonl"),
    `${["r1", "r2"].map((id) => JSON.stringify({ id, prompt: id })).join("\n")}\n`,
  );
  const batch = (maxCost: string) =>
    runCli(["batch", "tasks.jsonl", "--queue", queueUrl, "--out", "results.jsonl", "--max-cost", maxCost], {
      env: pricedEnv(),
      cwd: dir,
    });

  // The capped run: one worker, one task at a time; the first task's call ($0.00002) passes the
  // $0.00001 cap, so the second is never run. It fixes the run id the raised run resumes.
  const first = startWorker();
  let capped: Awaited<ReturnType<typeof batch>>;
  try {
    capped = await batch("0.00001");
  } finally {
    first.stop();
    await first.done;
  }
  assert.equal(capped.code, 1, capped.stderr);
  const cappedLines = readLines(join(dir, "results.jsonl"));
  assert.deepEqual(
    cappedLines.map((line) => line.status),
    ["ok"],
    capped.stderr,
  );
  const [done] = cappedLines;
  const notRun = done.id === "r1" ? "r2" : "r1";

  // The race's outcome, made by hand as a worker makes it: the task's job (this run, attempt 1),
  // taken and completed with a signed "not run" after the capped batch had gone.
  const target = parseQueueUrl(queueUrl, { env: pricedEnv() });
  const { Queue, Worker } = await loadBullmq();
  const jobId = jobIdOf(done.runId, folderNameOf(notRun), 1);
  const queue = new Queue(target.name, { connection: target.connection });
  const worker = new Worker(target.name, async () => sign(target.key, "result", jobId, NOT_RUN), {
    connection: target.connection,
    autorun: false,
  });
  try {
    await queue.add("task", { stale: true }, { jobId });
    const completed = new Promise<void>((resolve) => worker.on("completed", () => resolve()));
    void worker.run();
    await completed;
    assert.equal(await queue.getJobState(jobId), "completed", "the stale 'not run' is in Redis");
  } finally {
    await worker.close();
    await queue.close();
  }

  // The raised run: the same run goes on; the stale "not run" is not its own, so the task runs.
  const second = startWorker();
  let raised: Awaited<ReturnType<typeof batch>>;
  try {
    raised = await batch("1");
  } finally {
    second.stop();
    await second.done;
  }
  assert.equal(raised.code, 0, raised.stderr);
  assert.match(raised.stderr, /resuming run \S+: 1 of 2 tasks already have results/);
  assert.deepEqual(
    readLines(join(dir, "results.jsonl")).map((line) => [line.id, line.status, line.attempt]),
    [
      [done.id, "ok", 1],
      [notRun, "ok", 1],
    ],
    "the task the stale 'not run' stood for ran, once",
  );
  assert.ok(
    fake.requests.some((request) => promptOf(request) === notRun),
    "its model call was made",
  );
});
