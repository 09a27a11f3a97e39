// Issue 34's "Done when", at a size a loaded machine can run: `node --import tsx bench/batch-kills.ts
// [--tasks 100]` after `npm run build`. N tasks (each: setup checks the copy is clean and holds no
// key; the agent writes a file in one call and answers in a second; test checks the file and again
// no key) on this machine and on a two-worker queue, each interrupted by SIGKILL of a task's
// harness, of a worker (queue) and of the batch itself, then the same tasks on another model;
// then `batch report` over both runs. Prints wall and recovery times, and checks: one final result
// per task and run, every line's tokens and cost against its calls, the lines' total against the
// calls the fake server answered, no dirty copy, no key seen by setup or test. Figures, not thresholds.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../src/batch/task-result.ts";
import { readLines } from "../test/support/batch-files.ts";
import { type RecordedRequest, type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, tempDir } from "../test/support/helpers.ts";
import { harnessesIn, isAlive } from "../test/support/process-finder.ts";
import { freePort } from "../test/support/redis-server.ts";

const TASKS = Number(process.argv[process.argv.indexOf("--tasks") + 1]) || 100;
const KEY = "sk-bench-canary-5b1e";
const CALL_TOKENS = 15;
const CALL_COST = 0.00002;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function promptOf(request: RecordedRequest): string {
  return request.body.messages.find((message: { role: string }) => message.role === "user").content;
}

const answered = new Map<string, number>(); // model → calls answered
const step: ScriptStep = (request) => {
  const model = request.body.model as string;
  answered.set(model, (answered.get(model) ?? 0) + 1);
  const isFirstCall = !request.body.messages.some((message: { role: string }) => message.role === "tool");
  return isFirstCall
    ? { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo done > out.txt" } }] } }
    : { reply: { text: `finished ${promptOf(request)}` } };
};
const fake = await startFakeLLM(Array.from({ length: TASKS * 40 }, () => step));

const dir = tempDir("harness-bench-batch-");
const repo = join(dir, "repo");
mkdirSync(repo);
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: repo });
git("init", "-q", "-b", "main");
writeFileSync(join(repo, "README"), "bench\n");
git("add", ".");
git("commit", "-qm", "base");
const tasks = Array.from({ length: TASKS }, (_, index) => ({
  id: `t${index + 1}`,
  prompt: `task ${index + 1}`,
  repo,
  setup: `test ! -e out.txt && git diff --quiet HEAD && ! env | grep -q ${KEY}`,
  test: `test -f out.txt && ! env | grep -q ${KEY}`,
}));
writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);

function pricedEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv({ OPENAI_API_KEY: KEY });
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2 } } } }),
  );
  return env;
}

interface Run {
  child: ChildProcess;
  stderr: string;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  const run: Run = { child, stderr: "", exited: new Promise((resolve) => child.on("close", (code) => resolve(code))) };
  child.stderr?.on("data", (chunk: Buffer) => (run.stderr += chunk.toString("utf8")));
  return run;
}

async function until(isTime: () => boolean, what: string, limitMs = 600_000): Promise<number> {
  const started = Date.now();
  while (!isTime()) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
  return Date.now() - started;
}

/** SIGKILLs one task's harness; how long until it is gone. */
async function killOneHarness(workRoot: string): Promise<string> {
  await until(() => harnessesIn(workRoot).length > 0, "a running task");
  const [pid] = harnessesIn(workRoot);
  const at = Date.now();
  process.kill(pid, "SIGKILL");
  await until(() => !isAlive(pid), "the killed harness");
  return `task harness ${pid} killed (gone in ${seconds(Date.now() - at)})`;
}

/** The parent pid of a process (from /proc), or 0 when it is gone. */
function parentOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
  } catch {
    return 0;
  }
}

/** SIGKILLs a batch or worker; how long until the task harnesses it had started are gone. */
async function killWithTasks(run: Run, workRoot: string, what: string): Promise<string> {
  const orphans = harnessesIn(workRoot).filter((pid) => parentOf(pid) === run.child.pid);
  const at = Date.now();
  run.child.kill("SIGKILL");
  await run.exited;
  await until(() => orphans.every((pid) => !isAlive(pid)), "the orphaned harnesses");
  return `${what} killed with ${orphans.length} running harnesses in its tree (all gone in ${seconds(Date.now() - at)})`;
}

const lineCount = (out: string) => readLines(out).length;

/** The checks, per run of the results file. */
function check(out: string, model: string): string[] {
  const notes: string[] = [];
  const byRun = new Map<string, TaskResult[]>();
  for (const line of readLines(out)) byRun.set(line.runId, [...(byRun.get(line.runId) ?? []), line]);
  for (const [runId, lines] of byRun) {
    const finals = new Map<string, TaskResult>();
    let problems = 0;
    for (const line of lines) {
      const earlier = finals.get(line.id);
      if (earlier && earlier.status !== "crashed") problems++; // a second final result
      finals.set(line.id, line);
      const tokens = line.tokens.input + line.tokens.output + line.tokens.cached;
      if (tokens !== CALL_TOKENS * line.turns || Math.abs((line.cost ?? -1) - CALL_COST * line.turns) > 1e-9)
        problems++;
      if (
        line.status === "ok" &&
        line.diff !==
          "diff --git a/out.txt b/out.txt\nnew file mode 100644\nindex 0000000..19f86f4\n--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1 @@\n+done\n"
      )
        problems++;
      if (line.status === "error" || line.status === "failed") problems++; // setup (dirty copy, key) or test refused
    }
    const statuses = [...finals.values()].map((line) => line.status);
    // What went wrong, where something did: each task whose final result is not ok, as recorded.
    for (const line of finals.values())
      if (line.status !== "ok")
        notes.push(`  not ok: ${line.id}#${line.attempt} ${line.status}: ${JSON.stringify(line).slice(0, 600)}`);
    const crashed = lines.filter((line) => line.status === "crashed");
    const total = lines.reduce((sum, line) => sum + line.tokens.input + line.tokens.output + line.tokens.cached, 0);
    const runModel = lines[0].model ?? model;
    notes.push(
      `run ${runId} (${runModel}): ${finals.size} tasks, ${statuses.filter((s) => s === "ok").length} ok, ${lines.length} lines (${crashed.length} crashed attempts: ${crashed.map((line) => `${line.id}#${line.attempt} ${line.turns} calls`).join(", ") || "none"}); ${problems} problems; tokens in lines ${total} = ${total / CALL_TOKENS} calls; calls the server answered for ${runModel}: ${answered.get(runModel) ?? 0}`,
    );
  }
  return notes;
}

async function localScenario(): Promise<string[]> {
  const out = join(dir, "local.jsonl");
  const workRoot = join(dir, "local.work");
  const env = pricedEnv();
  const args = (model: string) => [
    "batch",
    "tasks.jsonl",
    "--out",
    out,
    "--concurrency",
    "8",
    "--provider",
    "openai",
    "--base-url",
    fake.baseUrl,
    "--model",
    model,
  ];
  const notes: string[] = [];
  const began = Date.now();
  const first = start(args("model-a"), env);
  await until(() => lineCount(out) >= TASKS * 0.2, "20% of results");
  notes.push(await killOneHarness(workRoot));
  await until(() => lineCount(out) >= TASKS * 0.5, "50% of results");
  notes.push(await killWithTasks(first, workRoot, "the batch"));
  const resumedAt = Date.now();
  const before = lineCount(out);
  const resumed = start(args("model-a"), env);
  const recovery = await until(() => lineCount(out) > before, "the resumed batch's first line");
  const code = await resumed.exited;
  notes.push(
    `resumed (exit ${code}): first line written ${seconds(recovery)} after it started (lost attempts recorded); the run took ${seconds(Date.now() - began)} in all, the resume ${seconds(Date.now() - resumedAt)}`,
  );
  const secondAt = Date.now();
  const second = start(args("model-b"), env);
  notes.push(`model-b run (exit ${await second.exited}): ${seconds(Date.now() - secondAt)}`);
  return [...notes, ...check(out, "model-a")];
}

async function queueScenario(): Promise<string[]> {
  const port = await freePort();
  const redis = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await sleep(500);
  const queue = `redis://127.0.0.1:${port}/bench`;
  const out = join(dir, "queue.jsonl");
  const workRoot = join(dir, "queue.work");
  const workerArgs = [
    "worker",
    "--queue",
    queue,
    "--concurrency",
    "4",
    "--workdir",
    workRoot,
    "--provider",
    "openai",
    "--base-url",
    fake.baseUrl,
    "--allow-models",
    "model-*",
    // The tasks' repository: a worker clones only from the folders it allows.
    "--allow-dir",
    repo,
  ];
  const notes: string[] = [];
  try {
    const workerA = start(workerArgs, pricedEnv());
    const workerB = start(workerArgs, pricedEnv());
    const batchArgs = (model: string) => [
      "batch",
      "tasks.jsonl",
      "--queue",
      queue,
      "--out",
      out,
      "--provider",
      "openai",
      "--model",
      model,
    ];
    const began = Date.now();
    const first = start(batchArgs("model-a"), pricedEnv());
    await until(() => lineCount(out) >= TASKS * 0.2, "20% of results");
    notes.push(await killOneHarness(workRoot));
    await until(() => lineCount(out) >= TASKS * 0.4, "40% of results");
    const gone = (run: Run) => (run.stderr.match(/is gone: \S+ is back in the queue/g) ?? []).length;
    const backBefore = gone(workerB);
    const killedAt = Date.now();
    notes.push(await killWithTasks(workerA, workRoot, "worker A"));
    await until(() => gone(workerB) > backBefore, "worker B to take A's tasks back").catch(() => 0);
    notes.push(
      `worker A's tasks back in the queue (worker B says so) ${seconds(Date.now() - killedAt)} after its kill`,
    );
    await until(() => lineCount(out) >= TASKS * 0.6, "60% of results");
    const batchKill = Date.now();
    first.child.kill("SIGKILL");
    await first.exited;
    const resumed = start(batchArgs("model-a"), pricedEnv());
    const code = await resumed.exited;
    notes.push(
      `batch SIGKILLed, run again (exit ${code}) collected the rest in ${seconds(Date.now() - batchKill)}; the run took ${seconds(Date.now() - began)} in all`,
    );
    const secondAt = Date.now();
    const second = start(batchArgs("model-b"), pricedEnv());
    notes.push(`model-b run on worker B (exit ${await second.exited}): ${seconds(Date.now() - secondAt)}`);
    workerB.child.kill("SIGTERM");
    await workerB.exited;
  } finally {
    redis.kill("SIGKILL");
  }
  return [...notes, ...check(out, "model-a")];
}

async function report(out: string): Promise<string> {
  const stdout = execFileSync(process.execPath, [CLI, "batch", "report", out, "--html", `${out}.html`], {
    env: cleanEnv(),
    encoding: "utf8",
  });
  return stdout
    .split("\n")
    .filter((line) => / · run |tasks ok|^tokens|^cost /.test(line))
    .join("\n");
}

console.log(`${TASKS} tasks, in ${dir}`);
const local = await localScenario();
for (const line of local) console.log(`local: ${line}`);
console.log(await report(join(dir, "local.jsonl")));
answered.clear();
const queued = await queueScenario();
for (const line of queued) console.log(`queue: ${line}`);
console.log(await report(join(dir, "queue.jsonl")));
await fake.close();
