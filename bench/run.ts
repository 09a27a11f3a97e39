// npm run bench: the built CLI against the fake LLM server on 127.0.0.1. Prints start-up time
// (process start to first request), the harness's own overhead per turn over a 100-step
// trajectory of trivial bash calls, peak memory, and --version time; then a 500-turn session
// under a 32k window (bench/long-session.ts) whose request sizes must stay bounded. Figures, not thresholds.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { startFakeLLM, type ScriptStep } from "../test/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/helpers.ts";
import { longSession, reportLongSession } from "./long-session.ts";

const STARTUP_RUNS = 10;
const TRAJECTORY_STEPS = 100;

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
  code: number | null;
}

/** Runs the CLI, sampling its peak RSS (VmHWM) from /proc while it lives. */
function runCli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const startedAt = now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: tempDir(), env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let peakRssKb = 0;
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (match) peakRssKb = Math.max(peakRssKb, Number(match[1]));
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
      resolve({ startedAt, stdout, peakRssKb, code });
    });
  });
}

async function startup(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const server = await startFakeLLM([{ reply: { text: "hi" } }]);
    const run = await runCli([...fakeFlags(server), "-p", "hi"]);
    times.push(server.requests[0].receivedAt - run.startedAt);
    await server.close();
  }
  return times;
}

async function versionTimes(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const run = await runCli(["--version"]);
    times.push(now() - run.startedAt);
  }
  return times;
}

async function trajectory() {
  const step: ScriptStep = { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
  const server = await startFakeLLM([...Array.from({ length: TRAJECTORY_STEPS }, () => step), { reply: { text: "done" } }]);
  const run = await runCli([...fakeFlags(server), "-y", "--max-turns", "1000", "--output", "stream-json", "-p", "go"]);
  const toolTimes = run.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((e) => e.type === "tool_end").map((e) => e.durationMs as number);
  const overheads: number[] = [];
  for (let i = 0; i + 1 < server.requests.length; i++) {
    const gap = server.requests[i + 1].receivedAt - (server.requests[i].answeredAt as number);
    overheads.push(gap - toolTimes[i]);
  }
  const bytes = server.requests.map((r) => JSON.stringify(r.body).length);
  await server.close();
  return { overheads, toolTimes, peakRssKb: run.peakRssKb, code: run.code, firstRequestBytes: bytes[0], lastRequestBytes: bytes.at(-1) as number };
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const start = await startup();
const version = await versionTimes();
const traj = await trajectory();
const firstHalf = traj.overheads.slice(0, 50);
const secondHalf = traj.overheads.slice(50);
console.log(`start-up to first request: median ${fmt(median(start))}, min ${fmt(Math.min(...start))} (${STARTUP_RUNS} runs)`);
console.log(`--version: median ${fmt(median(version))}`);
console.log(`per-turn overhead (${traj.overheads.length} turns): median ${fmt(median(traj.overheads))}, p95 ${fmt(percentile(traj.overheads, 95))}; turns 1-50 median ${fmt(median(firstHalf))}, turns 51-100 median ${fmt(median(secondHalf))}`);
console.log(`bash 'true' run time: median ${fmt(median(traj.toolTimes))}`);
console.log(`peak RSS over the trajectory: ${(traj.peakRssKb / 1024).toFixed(1)} MB (exit ${traj.code})`);
console.log(`first request body: ${traj.firstRequestBytes} bytes; last: ${traj.lastRequestBytes} bytes`);
reportLongSession(await longSession(), { median });
