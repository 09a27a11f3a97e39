import { spawn } from "node:child_process";
import { killGroup } from "../shared/helpers.ts";

/** Most of a hook's stdout or stderr that is kept; the rest is dropped (a hook talks briefly). */
const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

/** How one hook command ended. `code` is null when it was killed or could not start. */
export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start, or the abort that killed it. */
  failure?: string;
}

/**
 * Runs a hook command through the shell in `cwd`, with the event as JSON on stdin. The command
 * runs in its own process group, so a timeout or an abort kills everything it started.
 */
export function runHookCommand(
  command: string,
  input: unknown,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal },
): Promise<HookRun> {
  return new Promise((resolve) => {
    const settle = (code: number | null) => resolve({ code, stdout: "", stderr: "", timedOut: false, failure });
    const child = spawn(command, {
      cwd: options.cwd,
      env: options.env,
      shell: true,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let timedOut = false;
    let failure: string | undefined;
    // First, before anything can throw: a spawn that fails (EMFILE) has no pipes and never closes.
    child.on("error", (error) => {
      failure = error.message;
      if (!child.stdout) settle(null);
    });
    if (!child.stdout || !child.stderr || !child.stdin) return;
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    const kill = () => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      failure = "interrupted by the user";
      kill();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    // A hook that does not read its stdin must not make us crash with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      resolve({
        code: timedOut || failure ? null : code,
        stdout: stdout(),
        stderr: stderr(),
        timedOut,
        ...(failure ? { failure } : {}),
      });
    });
  });
}

function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on("data", (chunk: Buffer) => {
    if (size >= MAX_HOOK_OUTPUT_BYTES) return;
    chunks.push(chunk.subarray(0, MAX_HOOK_OUTPUT_BYTES - size));
    size += chunk.length;
  });
  return () => Buffer.concat(chunks).toString("utf8");
}
