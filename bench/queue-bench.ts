// What the queue bench scripts (batch-redis-restart.ts, batch-graded-environments.ts) share: a
// throwaway redis-server on a port of its own (started again on it when killed), the built CLI as
// a process whose stderr is kept, waiting for a results file to reach a number of lines, and the
// count of tasks with exactly one final line. Figures, not thresholds, are the scripts' own.
import { type ChildProcess, spawn } from "node:child_process";
import type { TaskResult } from "../src/batch/task-result.ts";
import { readLines } from "../test/support/batch-files.ts";
import { CLI } from "../test/support/helpers.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** redis-server on 127.0.0.1:`port`, no persistence (so a restart comes back empty). */
export function startRedisOn(port: number): ChildProcess {
  return spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
}

/** Starts `harness <args>` in `dir` with `env`; its stderr goes into `logs`. */
export function cliStarter(dir: string, env: NodeJS.ProcessEnv, logs: string[]) {
  return (args: string[]): ChildProcess => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (chunk: Buffer) => logs.push(chunk.toString()));
    return child;
  };
}

/** Resolves once the results file `path` has `count` lines. */
export async function untilLines(path: string, count: number): Promise<void> {
  while (readLines(path).length < count) await sleep(200);
}

/** Resolves to the child's exit code (at once when it has exited already). */
export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((resolve) => child.once("exit", resolve));

/** Final lines (any status but `crashed`) per task id, and how many tasks have exactly one. */
export function finalsOf(lines: TaskResult[]): { finals: Map<string, number>; once: number; more: number } {
  const finals = new Map<string, number>();
  for (const line of lines) if (line.status !== "crashed") finals.set(line.id, (finals.get(line.id) ?? 0) + 1);
  const counts = [...finals.values()];
  return { finals, once: counts.filter((n) => n === 1).length, more: counts.filter((n) => n > 1).length };
}

/** `harness worker` of 4 on `queue` with its own `--workdir`, then `extra` flags. */
export const workerArgs = (queue: string, workdir: string, extra: string[]) =>
  ["worker", "--queue", queue, "--concurrency", "4", "--workdir", workdir].concat(extra);

/**
 * SIGKILLs `workers[0]`, starts `restart()` 3 s later (on the dead worker's --workdir, as an
 * operator would: its records go back into Redis), waits for `batch` to end, then stops the
 * workers left (SIGTERM). Returns when the kill was, the batch's exit code and when it ended.
 */
export async function killOneWorkerAndFinish(
  workers: ChildProcess[],
  restart: () => ChildProcess,
  batch: ChildProcess,
) {
  workers[0].kill("SIGKILL");
  const killedAt = Date.now();
  await sleep(3000);
  workers.push(restart());
  const code = await exited(batch);
  const endedAt = Date.now();
  for (const child of workers.slice(1)) child.kill("SIGTERM");
  await Promise.all(workers.slice(1).map(exited));
  return { killedAt, code, endedAt };
}

/** `--tasks N` (150 when not given). */
export const TASKS = Number(process.argv[process.argv.indexOf("--tasks") + 1]) || 150;
/** One fake call's price under pricedEnv's prices (10 tokens in at $1/M, 5 out at $2/M). */
export const CALL_COST = 0.00002;
