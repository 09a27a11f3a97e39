// Task environments at the issue's size: `node --import tsx bench/batch-environments.ts [--tasks 150]
// [--concurrency 8] [--out dir]` after `npm run build`. The same N tiny tasks (setup, one bash call
// of the agent, test: each checks it runs inside the minimal rootfs, test/support/minimal-rootfs.ts)
// run three ways on the local pool against the fake server: on the host's `/` (no environment, the
// baseline), in the rootfs folder, and in an image imported from it into podman (unpacked once;
// skipped without podman, with a storage of its own; `--ways rootfs` runs only that one). Prints each run's wall time, tasks/s, results
// by status and the median task; figures, not thresholds.
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { readLines } from "../test/support/batch-files.ts";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, tempDir } from "../test/support/helpers.ts";
import { makeMinimalRootfs, PROBE_STEPS, probeTask } from "../test/support/minimal-rootfs.ts";
import { importImage, podmanEnv } from "../test/support/podman.ts";

const argument = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const TASKS = Number(argument("--tasks")) || 150;
const CONCURRENCY = argument("--concurrency") ?? "8";
/** Which of the three runs (`--ways rootfs` for one): host, rootfs, image. */
const WAYS = (argument("--ways") ?? "host,rootfs,image").split(",");
const dir = argument("--out") ?? tempDir("harness-bench-env-");
mkdirSync(dir, { recursive: true });

// Each task: the agent's one command (PROBE_STEPS' first reply), then its answer.
const step: ScriptStep = (request) =>
  request.body.messages.some((message: { role: string }) => message.role === "tool") ? PROBE_STEPS[1] : PROBE_STEPS[0];
const fake = await startFakeLLM(Array.from({ length: TASKS * 2 * 3 + 10 }, () => step));
makeMinimalRootfs(join(dir, "rootfs"));
const hasPodman = WAYS.includes("image") && spawnSync("sh", ["-c", "command -v podman"]).status === 0;
const podman = hasPodman ? podmanEnv() : {};
if (hasPodman) importImage(join(dir, "rootfs"), "localhost/harness-bench:1", podman);

const env = cleanEnv({ OPENAI_API_KEY: "sk-bench", ...podman });
// Asynchronous: the fake server answers from this process, so nothing here may block it.
const harness = (args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: "utf8", maxBuffer: 64 << 20 }).catch(
    (error: { stdout: string; stderr: string }) => error,
  );

const ways = (
  [
    ["host /", undefined, WAYS.includes("host")],
    ["rootfs", { rootfs: "rootfs" }, WAYS.includes("rootfs")],
    ["image (podman)", { image: "localhost/harness-bench:1" }, hasPodman],
  ] as Array<[string, object | undefined, boolean]>
).filter(([, , isRun]) => isRun);
for (const [name, environment] of ways) {
  const file = `tasks-${ways.findIndex(([way]) => way === name)}.jsonl`;
  const tasks = Array.from({ length: TASKS }, (_, index) => {
    const task = probeTask(`t${index + 1}`, environment ?? {});
    // On the host's `/` the checks of the rootfs would fail: the same commands, without them.
    return environment
      ? task
      : { id: task.id, prompt: task.prompt, setup: "echo set > from-setup.txt", test: "test -f from-setup.txt" };
  });
  writeFileSync(join(dir, file), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const out = `results-${file}`;
  const started = Date.now();
  const run = await harness(
    ["batch", file, "--out", out, "--concurrency", CONCURRENCY, "--workdir", join(dir, "work")].concat([
      "--provider",
      "openai",
      "--base-url",
      fake.baseUrl,
      "--model",
      "fake-model",
    ]),
  );
  const seconds = (Date.now() - started) / 1000;
  const results = readLines(join(dir, out));
  const statuses = new Map<string, number>();
  for (const result of results) statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
  const passed = results.filter((result) => result.testExitCode === 0).length;
  const durations = results.map((result) => result.durationMs).sort((a, b) => a - b);
  const median = durations[Math.floor(durations.length / 2)] ?? 0;
  console.log(
    `${name}: ${TASKS} tasks in ${seconds.toFixed(1)} s (${(TASKS / seconds).toFixed(2)} tasks/s), ${[...statuses].map(([status, count]) => `${count} ${status}`).join(", ")}, test passed ${passed}, median task ${(median / 1000).toFixed(2)} s`,
  );
  if (results.length < TASKS) console.log(run.stderr.slice(-2000));
}
await fake.close();
