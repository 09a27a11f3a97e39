import { spawn } from "node:child_process";
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import { MAX_OUTPUT_BYTES, truncateMiddle } from "./output-limit.ts";

/** Default per-command time limit; the model may ask for more, up to the cap. */
export const BASH_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** After SIGTERM, how long a process tree gets before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** After the shell exits, how long to wait for background children still holding its pipes. */
const PIPE_DRAIN_MS = 200;
/** Bytes kept from each end while a command runs, so a flood of output costs bounded memory. */
const KEEP_BYTES = 4 * MAX_OUTPUT_BYTES;

/** Keeps pagers, prompts, colours and progress bars out of captured output. */
const QUIET_ENV: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
  TERM: "dumb",
  NO_COLOR: "1",
  PIP_PROGRESS_BAR: "off",
  npm_config_progress: "false",
  npm_config_fund: "false",
};

export const bash = defineTool({
  name: "bash",
  description: "Run a bash command in the working directory. No stdin. Returns stdout+stderr and the exit code; long output is cut in the middle.",
  kind: "execute",
  input: z.object({
    command: z.string().describe("The command"),
    timeout: z.number().int().positive().optional().describe(`Seconds before it is killed (default ${BASH_TIMEOUT_MS / 1000}, max ${BASH_MAX_TIMEOUT_MS / 1000})`),
  }),
  describe: (input) => `bash> ${input.command}`,
  async run(input, { cwd, signal, env }) {
    const timeoutMs = Math.min((input.timeout ?? BASH_TIMEOUT_MS / 1000) * 1000, BASH_MAX_TIMEOUT_MS);
    const result = await runCommand(input.command, { cwd, env: env ?? process.env, timeoutMs, signal });
    const output = truncateMiddle(cleanOutput(result.output));
    const status = result.timedOut
      ? `[timed out after ${timeoutMs / 1000}s; the process tree was killed]`
      : result.interrupted
        ? "[interrupted by the user; the process tree was killed]"
        : result.signal
          ? `[killed by ${result.signal}]`
          : `[exit code: ${result.exitCode}]`;
    const isError = result.timedOut || result.interrupted || result.exitCode !== 0;
    return { content: output ? `${output}\n${status}` : status, isError, summary: status };
  },
});

interface CommandResult {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
}

/** Runs `bash -c` in its own process group, so a timeout or Ctrl-C kills everything it started. */
export function runCommand(
  command: string,
  { cwd, env, timeoutMs, signal }: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal },
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env: { ...env, ...QUIET_ENV }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const captured = new BoundedCapture(KEEP_BYTES);
    let timedOut = false;
    let settled = false;
    child.stdout.on("data", (chunk: Buffer) => captured.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => captured.add(chunk));

    const killTree = () => {
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, timeoutMs);
    const onAbort = () => killTree();
    signal.addEventListener("abort", onAbort, { once: true });

    const finish = (exitCode: number | null, exitSignal: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ output: captured.text(), exitCode, signal: exitSignal, timedOut, interrupted: signal.aborted && !timedOut });
    };
    child.on("error", (error) => {
      captured.add(Buffer.from(`failed to start bash: ${error.message}\n`));
      finish(127, null);
    });
    child.on("exit", (code, exitSignal) => {
      // Background children may still hold the pipes open: give them a moment, then stop reading.
      const drain = setTimeout(() => finish(code, exitSignal), PIPE_DRAIN_MS);
      child.on("close", () => {
        clearTimeout(drain);
        finish(code, exitSignal);
      });
    });
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Keeps the first and last `keep` bytes of a stream and counts what fell between. */
class BoundedCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private droppedBytes = 0;

  constructor(private readonly keep: number) {}

  add(chunk: Buffer): void {
    if (this.headBytes < this.keep) {
      const take = chunk.subarray(0, this.keep - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.keep) {
      const dropped = this.tail.shift() as Buffer;
      this.tailBytes -= dropped.length;
      this.droppedBytes += dropped.length;
    }
  }

  /** Invalid UTF-8 becomes U+FFFD rather than breaking the message. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (this.droppedBytes === 0) return head + tail;
    return `${head}\n[... ${this.droppedBytes} bytes cut from the middle of this output ...]\n${tail}`;
  }
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Strips colour codes and keeps only the final state of lines redrawn with carriage returns. */
export function cleanOutput(text: string): string {
  return text
    .replace(ANSI, "")
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      const cut = trimmed.lastIndexOf("\r");
      return cut === -1 ? trimmed : trimmed.slice(cut + 1);
    })
    .join("\n")
    .replace(/\n+$/, "");
}
