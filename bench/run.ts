// npm run bench: the built CLI against the fake LLM server on 127.0.0.1 at 0 ms latency.
// Prints start-up time (from spawning the process to the first request's last byte at the fake
// server: Node's own start-up is in it, and so is NODE_EXTRA_CA_CERTS when set), --version time,
// where start-up's CPU goes before the first request (bench/startup-profile.ts),
// the floor under both (a tiny Node script posting one request, with `http` and with `fetch`:
// its start → request and peak RSS), the harness's own
// time per step of a 20-step shell script (the `echo` included) with the sandbox on and off,
// the floor for one command (`bash -c echo` spawned from a tiny process), a 500-step run
// (own time per 100-step block: it must stay flat; peak memory at step 100 and at the end),
// then a 500-turn session under a 32k window (bench/long-session.ts) whose request sizes must
// stay bounded, which facts survive compaction (bench/continuity.ts), bytes uploaded per session and
// step with Anthropic's message threads and without (bench/thread-bytes.ts), the undo snapshot of a
// 10,000-file workspace (bench/snapshots.ts), language servers' diagnostics
// (bench/language-servers.ts), resume of a 500-step session (bench/resume.ts), issue 52's goals
// met or by how much not, and the local
// model's context, memory and tokens/s with a model of Qwen3 0.6B's shape (bench/local-model.ts).
// Figures, not thresholds. `BENCH_CLI=/other/checkout/bin/harness.js` measures
// another build (before/after comparisons); `--quick` leaves out the long session. The compile
// cache row compares a cold and a warm cache on Node 22.1+ (`--compile-cache`: that row alone).
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";
import { continuity, reportContinuity } from "./continuity.ts";
import { languageServerBench } from "./language-servers.ts";
import { longSession, reportLongSession } from "./long-session.ts";
import { reportResume, resumeBench } from "./resume.ts";
import { reportSnapshots, snapshotBench } from "./snapshots.ts";
import { reportStartupProfile, startupProfile } from "./startup-profile.ts";
import { reportThreadBytes, threadBytes } from "./thread-bytes.ts";

const cli = process.env.BENCH_CLI ?? CLI;
const STARTUP_RUNS = 10;
/** The issue's comparison: a 20-step shell script, run this many times per sandbox setting. */
const SCRIPT_STEPS = 20;
const SCRIPT_RUNS = 3;
const LONG_STEPS = 500;
const BLOCK = 100;
const FLOOR_SPAWNS = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const now = () => performance.timeOrigin + performance.now();

interface Run {
  startedAt: number;
  stdout: string;
  peakRssKb: number;
  /** Peak RSS (VmHWM) as sampled over time: [when, kB]. */
  peaks: [number, number][];
  code: number | null;
}

/** Runs the CLI, sampling its peak RSS (VmHWM) from /proc while it lives. */
function runCli(args: string[], env = cleanEnv()): Promise<Run> {
  return runNode([cli, ...args], env);
}

/** Runs Node with `argv`, sampling its peak RSS (VmHWM) from /proc while it lives. */
function runNode(argv: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const startedAt = now();
    const child = spawn(process.execPath, argv, {
      cwd: tempDir(),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let peakRssKb = 0;
    const peaks: [number, number][] = [];
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (match) peakRssKb = Math.max(peakRssKb, Number(match[1]));
        peaks.push([now(), peakRssKb]);
      } catch {
        // exited
      }
    };
    const timer = setInterval(sample, 5);
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      sample();
    });
    child.on("close", (code) => {
      clearInterval(timer);
      resolve({ startedAt, stdout, peakRssKb, peaks, code });
    });
  });
}

/** Start-ups share one HARNESS_HOME, as a user's runs do: on Node 22.1+ its compile cache is warm after the first. */
async function startup(): Promise<number[]> {
  const times: number[] = [];
  const env = cleanEnv();
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const server = await startFakeLLM([{ reply: { text: "hi" } }]);
    const run = await runCli([...fakeFlags(server), "-p", "hi"], env);
    times.push(server.requests[0].receivedAt - run.startedAt);
    await server.close();
  }
  return times;
}

/**
 * Node's module compile cache (src/cli/cli.ts useCompileCache, Node 22.1+): start → first request with
 * an empty $HARNESS_HOME/compile-cache (a fresh home each run, which also pays for writing it) and
 * with a warm one (one home, warmed by a run first), alternating run by run so load drifts alike.
 */
async function compileCacheStartup(): Promise<{ cold: number[]; warm: number[] } | undefined> {
  const { enableCompileCache } = (await import("node:module")) as { enableCompileCache?: unknown };
  if (typeof enableCompileCache !== "function") return undefined;
  const warmEnv = cleanEnv();
  const firstRequest = async (env: NodeJS.ProcessEnv) => {
    const server = await startFakeLLM([{ reply: { text: "hi" } }]);
    const run = await runCli([...fakeFlags(server), "--context-window", "100000", "-p", "hi"], env);
    await server.close();
    return server.requests[0].receivedAt - run.startedAt;
  };
  await firstRequest(warmEnv);
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    cold.push(await firstRequest(cleanEnv()));
    warm.push(await firstRequest(warmEnv));
  }
  return { cold, warm };
}

function reportCompileCache(result: { cold: number[]; warm: number[] } | undefined): void {
  if (!result) return console.log(`compile cache: none on Node ${process.version} (it needs 22.1)`);
  console.log(
    `compile cache (Node ${process.version}): start → first request median ${fmt(median(result.cold))} cold, ${fmt(median(result.warm))} warm (${STARTUP_RUNS} each, alternating)`,
  );
}

async function versionTimes(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const run = await runCli(["--version"]);
    times.push(now() - run.startedAt);
  }
  return times;
}

/** A script of `steps` bash calls of `command`, then an answer; own time per step is the gap between answering one request and receiving the next. */
async function shellScript(steps: number, command: string, sandbox: "on" | "off") {
  const step: ScriptStep = { reply: { toolCalls: [{ name: "bash", arguments: { command } }] } };
  const server = await startFakeLLM([...Array.from({ length: steps }, () => step), { reply: { text: "done" } }]);
  const run = await runCli([
    ...fakeFlags(server),
    "-y",
    "--sandbox",
    sandbox,
    "--max-turns",
    String(steps + 10),
    "--output",
    "stream-json",
    "-p",
    "go",
  ]);
  const events = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const toolTimes = events.filter((e) => e.type === "tool_end").map((e) => e.durationMs as number);
  const ownTimes: number[] = [];
  for (let i = 0; i + 1 < server.requests.length; i++)
    ownTimes.push(server.requests[i + 1].receivedAt - (server.requests[i].answeredAt as number));
  const peakAt = (request: number) =>
    [...run.peaks].reverse().find(([when]) => when <= server.requests[request].receivedAt)?.[1] ?? 0;
  const result = {
    ownTimes,
    overheads: ownTimes.map((own, i) => own - toolTimes[i]),
    toolTimes,
    peakRssKb: run.peakRssKb,
    peakRssAt100Kb: server.requests.length > BLOCK ? peakAt(BLOCK) : run.peakRssKb,
    code: run.code,
    firstRequestBytes: JSON.stringify(server.requests[0].body).length,
    firstRequest: server.requests[0].body,
    lastRequestBytes: JSON.stringify(server.requests.at(-1)?.body).length,
    // TCP connections the server accepted over the session: 1 when one kept-alive connection served it.
    connections: server.connections,
    requests: server.requests.length,
  };
  await server.close();
  return result;
}

/** The floor: `bash -c echo` spawned one after another from a fresh, tiny Node process. */
function spawnFloor(): Promise<number[]> {
  const program = `const { spawn } = require("node:child_process"); const times = [];
    const next = () => { const t = performance.now(); spawn("bash", ["-c", "echo"], { stdio: ["ignore", "pipe", "pipe"] }).on("close", () => { times.push(performance.now() - t); if (times.length < ${FLOOR_SPAWNS}) next(); else console.log(JSON.stringify(times)); }); };
    next();`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", program], {
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => resolve(JSON.parse(out)));
  });
}

/**
 * The floor under start-up and memory: a tiny Node script that posts one request to the fake
 * server and exits, with `http` (as the adapters do) and with `fetch` (undici). Start → request
 * and peak RSS, medians of STARTUP_RUNS; the same environment as the CLI's runs.
 */
async function nodeFloor(client: "http" | "fetch"): Promise<{ start: number; peakRssKb: number }> {
  const post =
    client === "http"
      ? `const u = new URL(process.argv[1] + "/chat/completions"); require("node:http").request(u, { method: "POST", headers: { "content-type": "application/json" } }, (r) => r.resume()).end("{}");`
      : `fetch(process.argv[1] + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) => r.text());`;
  const starts: number[] = [];
  const peaks: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const server = await startFakeLLM([{ reply: { text: "hi" } }]);
    const run = await runNode(["-e", post, server.baseUrl], cleanEnv());
    starts.push(server.requests[0].receivedAt - run.startedAt);
    peaks.push(run.peakRssKb);
    await server.close();
  }
  return { start: median(starts), peakRssKb: median(peaks) };
}

/** What the first request spends its bytes on: the system prompt and each built-in tool's declaration (chat-completions JSON). */
function firstRequestParts(body: {
  messages: { role: string; content: unknown }[];
  tools: { function: { name: string } }[];
}): string {
  const system = body.messages.find((message) => message.role === "system");
  const parts = [
    `system prompt ${JSON.stringify(system?.content ?? "").length}`,
    ...body.tools.map((tool) => `${tool.function.name} ${JSON.stringify(tool).length}`),
  ];
  return parts.join(", ");
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
/** One of issue 52's goals: the figure, the bound it must stay under, met or by how much not. */
function goal(name: string, value: number, bound: number, unit: string): string {
  const shown = (figure: number) => `${figure.toFixed(unit === "×" ? 2 : 1)}${unit}`;
  return `${name}: ${shown(value)} (goal ≤ ${shown(bound)}: ${value <= bound ? "met" : `not met, ${shown(value - bound)} over`})`;
}
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
// `--compile-cache`: that row alone, on the Node running the bench (PATH=.node-versions/<v>/bin:$PATH npm run bench -- --compile-cache).
if (process.argv.includes("--compile-cache")) {
  reportCompileCache(await compileCacheStartup());
  process.exit(0);
}
const start = await startup();
const version = await versionTimes();
console.log(
  `start-up to first request: median ${fmt(median(start))}, min ${fmt(Math.min(...start))} (${STARTUP_RUNS} runs)`,
);
console.log(`--version: median ${fmt(median(version))}`);
reportStartupProfile(await startupProfile(cli), median);
reportCompileCache(await compileCacheStartup());
const goals: string[] = [];
for (const client of ["http", "fetch"] as const) {
  const floor = await nodeFloor(client);
  console.log(
    `floor: a tiny Node script posting one request with ${client}: start → request median ${fmt(floor.start)}, peak RSS ${mb(floor.peakRssKb)}`,
  );
  if (client === "http")
    goals.push(goal("start → first request over the http floor", median(start) / floor.start, 1.5, "×"));
}
for (const sandbox of ["on", "off"] as const) {
  const runs = [];
  for (let i = 0; i < SCRIPT_RUNS; i++) runs.push(await shellScript(SCRIPT_STEPS, "echo step", sandbox));
  const own = runs.flatMap((run) => run.ownTimes);
  const echo = runs.flatMap((run) => run.toolTimes);
  console.log(
    `own time per step, sandbox ${sandbox} (${SCRIPT_STEPS}-step script x ${SCRIPT_RUNS}, echo included): median ${fmt(median(own))}, p95 ${fmt(percentile(own, 95))}; the echo call itself ${fmt(median(echo))}; peak RSS ${mb(median(runs.map((run) => run.peakRssKb)))}`,
  );
  if (sandbox === "on")
    goals.push(goal(`peak RSS at ${SCRIPT_STEPS} steps`, median(runs.map((run) => run.peakRssKb)) / 1024, 55, " MB"));
}
const floor = await spawnFloor();
console.log(`spawn floor (bash -c echo from a tiny process, ${FLOOR_SPAWNS} spawns): median ${fmt(median(floor))}`);
const long = await shellScript(LONG_STEPS, "echo step", "on");
const blocks = Array.from({ length: Math.ceil(long.ownTimes.length / BLOCK) }, (_, i) =>
  long.ownTimes.slice(i * BLOCK, (i + 1) * BLOCK),
);
console.log(
  `own time per step over ${LONG_STEPS} steps (sandbox on), median per ${BLOCK}-step block: ${blocks.map((block) => fmt(median(block))).join(", ")}; without the command ${fmt(median(long.overheads))} (exit ${long.code})`,
);
console.log(
  `peak RSS: ${mb(long.peakRssAt100Kb)} over the first ${BLOCK} steps, ${mb(long.peakRssKb)} over ${LONG_STEPS}`,
);
const overheadBlocks = Array.from({ length: blocks.length }, (_, i) =>
  long.overheads.slice(i * BLOCK, (i + 1) * BLOCK),
);
console.log(
  `own time per step without the command, mean per ${BLOCK}-step block: ${overheadBlocks.map((block) => fmt(mean(block))).join(", ")}`,
);
goals.push(goal(`own time per step without the command, mean over ${LONG_STEPS}`, mean(long.overheads), 5, " ms"));
goals.push(
  goal(
    `own time per step, last ${BLOCK}-step block's mean over the first's`,
    mean(overheadBlocks.at(-1) ?? []) / mean(overheadBlocks[0]),
    1.1,
    "×",
  ),
);
console.log(`first request body: ${long.firstRequestBytes} bytes; last: ${long.lastRequestBytes} bytes`);
console.log(`connections per session: ${long.connections} for ${long.requests} model calls (chat completions)`);
console.log(`first request by part (bytes of JSON): ${firstRequestParts(long.firstRequest)}`);
if (!process.argv.includes("--quick")) reportLongSession(await longSession(), { median });
reportContinuity(await continuity());
reportThreadBytes(await threadBytes(cli), median);
const resume = await resumeBench(cli);
reportResume(resume, median);
goals.push(
  goal("resume of a 500-step session over a fresh start", median(resume.resumed) / median(resume.fresh), 1.3, "×"),
);
reportSnapshots(await snapshotBench());
for (const line of await languageServerBench()) console.log(line);
// What the network allowlist's proxy adds per connection (bench/network-proxy.ts), in a process of its own.
spawnSync(process.execPath, ["--import", "tsx", "bench/network-proxy.ts"], { stdio: "inherit" });
console.log(`goals on Node ${process.version} (issue 52; the local model's is in its own row below):`);
for (const line of goals) console.log(`  ${line}`);
// The local model in a process of its own, so its peak RSS is the model's (bench/local-model.ts):
// the Qwen3 0.6B shape by default; `node --import tsx bench/local-model.ts all` adds the 4B.
if (!process.argv.includes("--quick"))
  spawnSync(process.execPath, ["--import", "tsx", "bench/local-model.ts"], { stdio: "inherit" });
