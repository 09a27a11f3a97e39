// The resume case of `npm run bench` (issue 52): start → first request of `harness -c -p` on a
// session of STEPS tool steps, against a fresh start in another folder with the same
// HARNESS_HOME, alternating run by run so the machine's load drifts alike for both. The goal is
// resume within 1.3× of a fresh start at 500 steps. Figures, not thresholds.
import { spawn } from "node:child_process";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";

const STEPS = 500;
const RUNS = 7;

function run(cli: string, cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const startedAt = performance.timeOrigin + performance.now();
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: "ignore" });
    child.on("close", () => resolve(startedAt));
  });
}

/** Start → first request of one run in `cwd`; `extra` are its flags after the fake's. */
async function firstRequest(cli: string, cwd: string, env: NodeJS.ProcessEnv, extra: string[]): Promise<number> {
  const server = await startFakeLLM([{ reply: { text: "hi" } }]);
  const startedAt = await run(cli, cwd, env, [...fakeFlags(server), ...extra]);
  await server.close();
  return server.requests[0].receivedAt - startedAt;
}

export interface ResumeTimes {
  steps: number;
  sessionBytes: number;
  resumed: number[];
  fresh: number[];
}

export async function resumeBench(cli = CLI): Promise<ResumeTimes> {
  const env = cleanEnv();
  const folder = tempDir();
  const step: ScriptStep = { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo step" } }] } };
  const server = await startFakeLLM([...Array.from({ length: STEPS }, () => step), { reply: { text: "done" } }]);
  await run(cli, folder, env, [
    ...fakeFlags(server),
    "-y",
    "--sandbox",
    "off",
    "--max-turns",
    String(STEPS + 10),
    "-p",
    "go",
  ]);
  await server.close();
  const sessionBytes = JSON.stringify(server.requests.at(-1)?.body ?? {}).length;
  const resumed: number[] = [];
  const fresh: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    // Each resume adds a short turn to the session: noise beside 500 steps, and what a user's `-c` does.
    resumed.push(await firstRequest(cli, folder, env, ["--sandbox", "off", "-c", "-p", "next"]));
    fresh.push(await firstRequest(cli, tempDir(), env, ["--sandbox", "off", "-p", "next"]));
  }
  return { steps: STEPS, sessionBytes, resumed, fresh };
}

export function reportResume(result: ResumeTimes, median: (values: number[]) => number): void {
  const ratio = median(result.resumed) / median(result.fresh);
  console.log(
    `resume of a ${result.steps}-step session (last request ${(result.sessionBytes / 1024).toFixed(0)} KB): start → first request median ${median(result.resumed).toFixed(1)} ms against ${median(result.fresh).toFixed(1)} ms fresh (${RUNS} each, alternating): ${ratio.toFixed(2)}× (goal ≤ 1.3×: ${ratio <= 1.3 ? "met" : `not met by ${(ratio - 1.3).toFixed(2)}×`})`,
  );
}
