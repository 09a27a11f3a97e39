// The first step and the exit (issue 52): a one-shot running a 5-step `echo` script with the
// sandbox off (so that only the undo snapshot differs between steps), against the fake LLM at
// 0 ms latency. Per run: own time of step 1 (answer of request 0 → request 1, which waits for
// the undo snapshot before the first command), the median own time of steps 2–5, the time from
// the final answer leaving the server to the process's exit (the after-turn snapshot is on that
// path), and how many `git` processes the run started (a logging `git` first on the PATH).
// The workspace holds 20 small files (a fresh $HARNESS_HOME each run: the first snapshot stores
// them). Medians and spreads of RUNS runs. `BENCH_BEFORE=/other/bin/harness.js` measures another
// build too, run by run in turn with this one, so that the machine's load drifts alike for both:
// `BENCH_BEFORE=… node --import tsx bench/first-step.ts [runs]`. This build with snapshots off
// (HARNESS_SNAPSHOTS=off) runs in turn too: the floor, what step 1 costs without any snapshot.
// `BENCH_FIRST_REPLY_DELAY_MS=n`: the model's first reply streams with n ms between its events,
// as a real model takes time to answer (the snapshot's warming runs beside it).
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findExecutable } from "../src/shared/system-program.ts";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";

const configs = [
  ...(process.env.BENCH_BEFORE ? [{ label: process.env.BENCH_BEFORE, cli: process.env.BENCH_BEFORE }] : []),
  { label: CLI, cli: CLI },
  { label: `${CLI} with snapshots off`, cli: CLI, snapshotsOff: true },
];
const RUNS = Number(process.argv[2] ?? 15);
const STEPS = 5;
const now = () => performance.timeOrigin + performance.now();

function gitShim(): { path: string; log: string } {
  const dir = tempDir("harness-git-shim-");
  const log = join(dir, "log");
  const real = findExecutable("git", process.env.PATH ?? "");
  writeFileSync(join(dir, "git"), `#!/bin/sh\necho x >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(dir, "git"), 0o755);
  writeFileSync(log, "");
  return { path: `${dir}:${process.env.PATH}`, log };
}

async function oneRun({
  cli,
  snapshotsOff,
}: {
  cli: string;
  snapshotsOff?: boolean;
}): Promise<{ first: number; later: number; exit: number; gits: number }> {
  const step: ScriptStep = { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo step" } }] } };
  const delayMs = Number(process.env.BENCH_FIRST_REPLY_DELAY_MS ?? 0);
  const firstStep: ScriptStep = { reply: { ...step.reply, delayMs } } as ScriptStep;
  const server = await startFakeLLM([
    firstStep,
    ...Array.from({ length: STEPS - 1 }, () => step),
    { reply: { text: "done" } },
  ]);
  const shim = gitShim();
  const env = { ...cleanEnv(), PATH: shim.path, ...(snapshotsOff ? { HARNESS_SNAPSHOTS: "off" } : {}) };
  const cwd = tempDir("harness-bench-ws-");
  for (let i = 0; i < 20; i++) writeFileSync(join(cwd, `file${i}.ts`), `export const value = ${i};\n`.repeat(20));
  const closedAt = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [cli, ...fakeFlags(server), "-y", "--sandbox", "off", "-p", "go"], {
      cwd,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("close", () => resolve(now()));
  });
  const r = server.requests;
  const own = r.slice(1).map((request, i) => request.receivedAt - (r[i].answeredAt as number));
  await server.close();
  return {
    first: own[0],
    later: median(own.slice(1)),
    exit: closedAt - (r.at(-1)?.answeredAt as number),
    gits: readFileSync(shim.log, "utf8").split("\n").filter(Boolean).length,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
const spread = (values: number[]) =>
  `median ${median(values).toFixed(1)} ms (min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)})`;

const runs = new Map<string, Awaited<ReturnType<typeof oneRun>>[]>(configs.map((config) => [config.label, []]));
for (let i = 0; i < RUNS; i++) for (const config of configs) runs.get(config.label)?.push(await oneRun(config));
for (const [label, of] of runs) {
  console.log(`${label}, ${RUNS} runs of a ${STEPS}-step one-shot, sandbox off:`);
  console.log(`  step 1 own time:       ${spread(of.map((run) => run.first))}`);
  console.log(`  steps 2-5 own time:    ${spread(of.map((run) => run.later))}`);
  console.log(`  final answer -> exit:  ${spread(of.map((run) => run.exit))}`);
  console.log(`  git processes per run: ${[...new Set(of.map((run) => run.gits))].join(", ")}`);
}
