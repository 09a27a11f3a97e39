// What the batch tests read: a task's prompt in a request to the fake server, results files, and
// how a job pushed into a queue ended.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Queue } from "bullmq";
import type { TaskResult } from "../../src/batch/task-result.ts";
import type { RecordedRequest } from "./fake-llm/server.ts";
import { cleanEnv } from "./helpers.ts";

/** The user prompt of a chat completions request: the task's prompt. */
export function promptOf(request: RecordedRequest): string {
  const user = request.body.messages.find((message: { role: string }) => message.role === "user");
  return typeof user.content === "string"
    ? user.content
    : user.content.map((part: { text?: string }) => part.text ?? "").join("");
}

/** The whole lines of a results file (none when it does not exist yet). */
export function readLines(path: string): TaskResult[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .map((line) => JSON.parse(line));
}

/** An environment whose openai prices are known: 10 tokens in at $1/M and 5 out at $2/M, $0.00002 a call. */
export function pricedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(extra);
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2 } } } }),
  );
  return env;
}

/** Longest wait for a worker to settle a job: far above the seconds it takes. */
const JOB_LIMIT_MS = 120_000;

/** How a queued job ended (polled until it completed or failed): its state, failure reason and result. */
export async function settled(
  queue: Queue,
  jobId: string,
): Promise<{ state: string; reason?: string; value?: TaskResult }> {
  const deadline = Date.now() + JOB_LIMIT_MS;
  while (Date.now() < deadline) {
    const state = await queue.getJobState(jobId);
    if (state === "completed" || state === "failed") {
      const job = await queue.getJob(jobId);
      return { state, reason: job?.failedReason, value: job?.returnvalue };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} did not settle within ${JOB_LIMIT_MS} ms`);
}

/** A git repository `<dir>/repo` (branch main) with one commit of `f.txt` holding "start". */
export function makeRepo(dir: string): string {
  const repo = join(dir, "repo");
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "f.txt"), "start\n");
  git("add", ".");
  git("commit", "-qm", "start");
  return repo;
}
