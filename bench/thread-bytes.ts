// The server-side state case of `npm run bench`: one 50-step session (each step a bash call
// printing about 2 KB) through the built CLI against the fake, on Anthropic Messages (message
// threads) and on OpenAI Responses (stored responses), each with server-side state
// (HARNESS_SERVER_STATE=on) and without. Prints the bytes uploaded per session and per step
// (median, last), and how many requests created or continued. Figures, not thresholds.
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

type Vendor = "anthropic" | "openai";

async function session(vendor: Vendor, serverState: "on" | "off", cli: string): Promise<ThreadBytes> {
  const steps: ScriptStep[] = Array.from({ length: STEPS }, (_, index) => ({
    reply: { toolCalls: [{ id: `toolu_${index + 1}`, name: "bash", arguments: { command: "seq 1 500" } }] },
  }));
  const server = await startFakeLLM([...steps, { reply: { text: "done" } }]);
  const env = cleanEnv({
    ANTHROPIC_API_KEY: "bench-key",
    OPENAI_API_KEY: "bench-key",
    HARNESS_SERVER_STATE: serverState,
  });
  const args =
    vendor === "anthropic"
      ? ["--provider", "anthropic", "--base-url", server.url, "--model", "claude-sonnet-4-5"]
      : ["--provider", "openai", "--api", "responses", "--base-url", server.baseUrl, "--model", "gpt-5.1-codex"];
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

type VendorBytes = { vendor: Vendor; on: ThreadBytes; off: ThreadBytes };

export async function threadBytes(cli = CLI): Promise<VendorBytes[]> {
  const results: VendorBytes[] = [];
  for (const vendor of ["anthropic", "openai"] as const)
    results.push({ vendor, on: await session(vendor, "on", cli), off: await session(vendor, "off", cli) });
  return results;
}

export function reportThreadBytes(results: VendorBytes[], median: (values: number[]) => number) {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  for (const result of results) {
    const state = result.vendor === "anthropic" ? "message threads" : "stored responses";
    for (const [name, run] of [
      [`with ${state}`, result.on],
      ["without", result.off],
    ] as const) {
      console.log(
        `bytes sent (${result.vendor}), ${STEPS + 1}-request session ${name}: ${kb(run.total)} per session; per step median ${kb(median(run.perStep))}, last ${kb(run.perStep.at(-1) ?? 0)} (${run.creates} created, ${run.continues} continued)`,
      );
    }
    console.log(`${state} upload ${((100 * result.on.total) / result.off.total).toFixed(1)}% of the bytes`);
  }
}
