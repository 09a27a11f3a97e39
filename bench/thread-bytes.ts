// The threads case of `npm run bench`: one 50-step session (each step a bash call printing about
// 2 KB) through the built CLI on Anthropic Messages against the fake, with message threads
// (HARNESS_SERVER_STATE=on) and without. Prints the bytes uploaded per session and per step
// (median, last), and how many requests created or continued a thread. Figures, not thresholds.
import { spawn } from "node:child_process";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, tempDir } from "../test/support/helpers.ts";

const STEPS = 50;

interface ThreadBytes {
  total: number;
  perStep: number[];
  creates: number;
  continues: number;
}

async function session(serverState: "on" | "off", cli: string): Promise<ThreadBytes> {
  const steps: ScriptStep[] = Array.from({ length: STEPS }, (_, index) => ({
    reply: { toolCalls: [{ id: `toolu_${index + 1}`, name: "bash", arguments: { command: "seq 1 500" } }] },
  }));
  const server = await startFakeLLM([...steps, { reply: { text: "done" } }]);
  const env = cleanEnv({ ANTHROPIC_API_KEY: "bench-key", HARNESS_SERVER_STATE: serverState });
  const args = ["--provider", "anthropic", "--base-url", server.url, "--model", "claude-sonnet-4-5"];
  await new Promise<void>((resolve) => {
    const child = spawn(
      process.execPath,
      [cli, ...args, "-y", "--sandbox", "off", "--max-turns", String(STEPS + 5), "-p", "go"],
      { cwd: tempDir(), env, stdio: "ignore" },
    );
    child.on("close", () => resolve());
  });
  await server.close();
  const perStep = server.requests.map((request) => request.bytes);
  return {
    total: perStep.reduce((sum, bytes) => sum + bytes, 0),
    perStep,
    creates: server.requests.filter((request) => request.thread === "create").length,
    continues: server.requests.filter((request) => request.thread === "continue").length,
  };
}

export async function threadBytes(cli = CLI): Promise<{ on: ThreadBytes; off: ThreadBytes }> {
  return { on: await session("on", cli), off: await session("off", cli) };
}

export function reportThreadBytes(result: { on: ThreadBytes; off: ThreadBytes }, median: (values: number[]) => number) {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  for (const [name, run] of [
    ["with threads", result.on],
    ["without", result.off],
  ] as const) {
    console.log(
      `bytes sent, ${STEPS + 1}-request session ${name}: ${kb(run.total)} per session; per step median ${kb(median(run.perStep))}, last ${kb(run.perStep.at(-1) ?? 0)} (${run.creates} created, ${run.continues} continued)`,
    );
  }
  console.log(`threads upload ${((100 * result.on.total) / result.off.total).toFixed(1)}% of the bytes`);
}
