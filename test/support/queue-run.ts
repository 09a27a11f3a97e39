// One batch on a fresh redis-server's queue, run by one worker: the shape of the queue tests that
// check what a worker takes and refuses (test/cli/batch-queue-environment.test.ts,
// test/cli/batch-image-environment.test.ts).
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../../src/batch/task-result.ts";
import { pricedEnv, readLines } from "./batch-files.ts";
import type { FakeLLM } from "./fake-llm/server.ts";
import { type CliResult, fakeFlags, runCli } from "./helpers.ts";
import { startRedis } from "./redis-server.ts";

/**
 * Writes `tasks` to `dir/tasks.jsonl`, starts a worker (`--workdir dir/work`, the fake's flags,
 * `workerFlags`, `workerEnv` added to a priced environment), runs the batch on the queue until it
 * ends, then stops the worker (SIGTERM); the results by task id, and both runs.
 */
export async function batchOnOneWorker(options: {
  dir: string;
  tasks: object[];
  fake: FakeLLM;
  workerFlags: string[];
  workerEnv?: Record<string, string>;
}): Promise<{ results: Map<string, TaskResult>; batch: CliResult; worker: CliResult }> {
  const { dir, fake } = options;
  const { port } = await startRedis();
  const queueUrl = `redis://127.0.0.1:${port}/one-worker`;
  writeFileSync(join(dir, "tasks.jsonl"), `${options.tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  let worker: ChildProcess | undefined;
  const working = runCli(
    ["worker", "--queue", queueUrl, "--workdir", join(dir, "work"), ...options.workerFlags, ...fakeFlags(fake)],
    { env: pricedEnv(options.workerEnv), onSpawn: (child) => (worker = child) },
  );
  const out = join(dir, "results.jsonl");
  const batch = await runCli(["batch", "tasks.jsonl", "--queue", queueUrl, "--out", out, "--model", "fake-model"], {
    cwd: dir,
    env: pricedEnv(),
  });
  worker?.kill("SIGTERM");
  const stopped = await working;
  return { results: new Map(readLines(out).map((line) => [line.id, line])), batch, worker: stopped };
}
