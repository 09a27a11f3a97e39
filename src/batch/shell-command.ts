// Runs a task's setup or test command (`sh -c` in the working copy), bounded in time and output,
// in the task's sandbox and with the environment the agent's own commands get (no keys).
import { spawn } from "node:child_process";
import { killGroup } from "../shared/helpers.ts";
import type { GroupTracker } from "./harness-child.ts";

/** A setup or test command running longer than this is killed (with all it started). */
export const COMMAND_TIMEOUT_MS = 30 * 60_000;
/** How much of a command's output is kept for error messages: its last characters. */
const OUTPUT_TAIL_CHARS = 2000;

/** How a command ended: its exit code (null when killed) and the tail of stdout and stderr together. */
export interface CommandOutcome {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
}

/**
 * Builds the command line that runs `argv` inside the sandbox, in `cwd` (the shape of
 * sandbox/sandbox-policy.ts's WrapCommand, which this layer may not import).
 */
export type WrapArgv = (argv: string[], cwd: string) => string[];

/** How a task's setup and test commands run: their environment, and their sandbox when there is one. */
export interface CommandSandbox {
  env: Record<string, string>;
  wrap?: WrapArgv;
}

/** Runs `command` with `sh -c` in `cwd`; an abort or the timeout kills its whole process group. */
export function runShellCommand(
  command: string,
  cwd: string,
  sandbox: CommandSandbox,
  signal: AbortSignal,
  options: { timeoutMs?: number; groups?: GroupTracker; outputChars?: number } = {},
): Promise<CommandOutcome> {
  const timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS;
  return new Promise((resolve) => {
    const argv = sandbox.wrap ? sandbox.wrap(["sh", "-c", command], cwd) : ["sh", "-c", command];
    // Its own process group, so killing it takes its children too.
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: sandbox.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid) options.groups?.track(child.pid);
    let output = "";
    let timedOut = false;
    const tail = options.outputChars ?? OUTPUT_TAIL_CHARS;
    const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-tail));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const kill = () => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    if (signal.aborted) kill();
    else signal.addEventListener("abort", kill, { once: true });
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      if (child.pid) options.groups?.untrack(child.pid);
      signal.removeEventListener("abort", kill);
      resolve({ exitCode, output: output.trim(), timedOut });
    };
    child.on("error", (error) => {
      output = error.message;
      finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}
