// The paired report at the issue's size: `node --import tsx bench/batch-report.ts [--tasks 150]
// [--out dir]` after `npm run build`. Two models run the same N tasks against the fake server
// (a clone of a small repository each; the test checks the file the agent writes): model-a
// solves about 55% of them, model-b about 67%, the two agreeing on most tasks as real models do
// (which tasks is fixed by a seeded draw, so every run of this script gives the same figures).
// Then `harness batch report --html --json` over both runs; prints the paired figures and where
// the page is. Figures, not thresholds.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { promptOf } from "../test/support/batch-files.ts";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, tempDir } from "../test/support/helpers.ts";

const argument = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const TASKS = Number(argument("--tasks")) || 150;
const dir = argument("--out") ?? tempDir("harness-bench-report-");
mkdirSync(dir, { recursive: true });

// Which tasks each model solves: u decides model-a (u < 0.55); model-b mostly agrees with it.
let state = 47;
const draw = () => {
  state = (state * 1103515245 + 12345) % 2 ** 31;
  return state / 2 ** 31;
};
const solves = new Map<string, boolean>();
for (let n = 1; n <= TASKS; n++) {
  const [u, w] = [draw(), draw()];
  solves.set(`model-a task ${n}`, u < 0.55);
  solves.set(`model-b task ${n}`, u < 0.55 ? w < 0.85 : w < 0.45);
}

/** A model that solves its task writes the file in one call, then answers; otherwise it only answers. */
const step: ScriptStep = (request) => {
  const [model, prompt] = [request.body.model as string, promptOf(request)];
  const called = request.body.messages.some((message: { role: string }) => message.role === "tool");
  return solves.get(`${model} ${prompt}`) && !called
    ? { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo done >> README" } }] } }
    : { reply: { text: `${model} finished ${prompt}` } };
};
const fake = await startFakeLLM(Array.from({ length: TASKS * 6 }, () => step));

const repo = join(dir, "repo");
mkdirSync(repo, { recursive: true });
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
  test: "grep -q done README",
}));
writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);

const env = cleanEnv({ OPENAI_API_KEY: "sk-bench" });
writeFileSync(
  join(env.HARNESS_HOME as string, "config.json"),
  JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2 } } } }),
);
// Asynchronous: the fake server answers from this process, so nothing here may block it.
const harness = (args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: "utf8", maxBuffer: 64 << 20 }).catch(
    (error: { stdout: string; stderr: string }) => error,
  );

for (const model of ["model-a", "model-b"]) {
  const started = Date.now();
  await harness(
    ["batch", "tasks.jsonl", "--out", "results.jsonl", "--concurrency", "8", "--provider", "openai"].concat([
      "--base-url",
      fake.baseUrl,
      "--model",
      model,
    ]),
  );
  console.log(`${model}: ${TASKS} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const text = await harness(["batch", "report", "results.jsonl", "--html", "report.html"]);
const json = await harness(["batch", "report", "results.jsonl", "--json"]);
writeFileSync(join(dir, "report.json"), json.stdout);
const pair = JSON.parse(json.stdout).pairs[0];
console.log(text.stdout.slice(text.stdout.indexOf("run 1 against"), text.stdout.indexOf("tasks side by side")));
console.log(`p = ${pair.pValue} · report: ${join(dir, "report.html")} (${text.stderr.trim()})`);
await fake.close();
