// Issue 47's "every try counted, once" at 150+ tasks: `node --import tsx bench/batch-redis-restart.ts
// [--tasks 150]` after `npm run build`. The tasks (two model calls each, against the fake LLM) run
// on a queue with two workers of 4; after a third of the results Redis is killed and started again
// empty on its port; after two thirds one worker is SIGKILLed (a third is started on its
// --workdir, as an operator would). Prints: tasks with exactly one final result, model calls the
// fake answered against calls in the lines, spend recorded against spent, and the retries (lines
// beyond one per task). Figures, not thresholds.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../src/batch/task-result.ts";
import { readLines } from "../test/support/batch-files.ts";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { cleanEnv, TEST_QUEUE_KEY, tempDir } from "../test/support/helpers.ts";
import { freePort } from "../test/support/redis-server.ts";
import {
  CALL_COST,
  cliStarter,
  exited,
  finalsOf,
  killOneWorkerAndFinish,
  sleep,
  startRedisOn,
  TASKS,
  untilLines,
  workerArgs,
} from "./queue-bench.ts";

let answered = 0;
const step: ScriptStep = async (request) => {
  answered++;
  await sleep(300); // a call takes a while, so tries are in flight when Redis goes
  return request.body.messages.some((message: { role: string }) => message.role === "tool")
    ? { reply: { text: "finished" } }
    : { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
};
const fake = await startFakeLLM(Array.from({ length: TASKS * 10 }, () => step));
const dir = tempDir("harness-bench-restart-");
writeFileSync(
  join(dir, "tasks.jsonl"),
  `${Array.from({ length: TASKS }, (_, index) => JSON.stringify({ id: `t${index + 1}`, prompt: `task ${index + 1}` })).join("\n")}\n`,
);
const env = cleanEnv({ HARNESS_QUEUE_KEY: TEST_QUEUE_KEY });
writeFileSync(
  join(env.HARNESS_HOME as string, "config.json"),
  JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2 } } } }),
);
const port = await freePort();
const startRedis = () => startRedisOn(port);
let redis = startRedis();
await sleep(500);
const queue = `redis://127.0.0.1:${port}/bench-restart`;
const fakeFlags = ["--provider", "openai", "--base-url", fake.baseUrl, "--model", "fake-model"];
const logs: string[] = [];
const start = cliStarter(dir, env, logs);
const worker = (n: number) => start(workerArgs(queue, join(dir, `w${n}`), fakeFlags));
const workers = [worker(1), worker(2)];
const started = Date.now();
const batch = start(["batch", "tasks.jsonl", "--queue", queue, "--out", "results.jsonl", "--model", "fake-model"]);
const out = join(dir, "results.jsonl");
const until = (count: number) => untilLines(out, count);
await until(Math.floor(TASKS / 3));
redis.kill("SIGKILL");
await exited(redis);
redis = startRedis();
const restartedAt = Date.now();
await until(Math.floor((2 * TASKS) / 3));
const { killedAt, code, endedAt } = await killOneWorkerAndFinish(workers, () => worker(1), batch);
const wall = endedAt - started;
redis.kill("SIGTERM");
await fake.close();

const lines: TaskResult[] = readLines(out);
const { finals, once, more } = finalsOf(lines);
const calls = lines.reduce((sum, line) => sum + line.turns, 0);
const recorded = lines.reduce((sum, line) => sum + (line.cost ?? 0), 0);
const statuses = new Map<string, number>();
for (const line of lines) statuses.set(line.status, (statuses.get(line.status) ?? 0) + 1);
const said = logs.join("");
console.log(`batch exit ${code}; ${TASKS} tasks, two workers of 4; wall ${(wall / 1000).toFixed(1)} s`);
console.log(
  `Redis restarted empty ${((restartedAt - started) / 1000).toFixed(1)} s in; worker SIGKILLed ${((killedAt - started) / 1000).toFixed(1)} s in`,
);
console.log(`tasks done exactly once: ${once} of ${TASKS} (tasks with 2+ final lines: ${more})`);
console.log(`lines ${lines.length}: ${[...statuses].map(([status, n]) => `${n} ${status}`).join(", ")}`);
console.log(`retries (lines beyond one per task): ${lines.length - finals.size}`);
console.log(`model calls answered ${answered}, in the lines ${calls}`);
console.log(
  `spend recorded $${recorded.toFixed(5)} vs spent $${(answered * CALL_COST).toFixed(5)} (${((100 * recorded) / (answered * CALL_COST)).toFixed(1)} %)`,
);
console.log(
  `said: ${said.includes("Redis lost the queue's state") ? "yes" : "no"} (Redis lost), ${(said.match(/put back \d+ results and \d+ tries/g) ?? []).join("; ")}`,
);
