// Runs a task's setup or test command (`sh -c` in the working copy), bounded in time and output.
import { spawn } from "node:child_process";
import { killGroup } from "../core/helpers.ts";

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

/** Runs `command` with `sh -c` in `cwd`; an abort or the timeout kills its whole process group. */
export function runShellCommand(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  timeoutMs = COMMAND_TIMEOUT_MS,
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    // Its own process group, so killing it takes its children too.
    const child = spawn("sh", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let timedOut = false;
    const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const kill = () => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    signal.addEventListener("abort", kill, { once: true });
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
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
