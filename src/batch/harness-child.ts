// One task's agent run: the harness CLI itself as a child process (`-p` from stdin,
// `--output stream-json`, `--yes`). A child per task means a task that crashes, leaks or hangs
// cannot take the pool down with it, each run gets the CLI's own handling of config, hooks,
// sessions and signals, and an interrupt or kill reaches exactly that task.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { RunResult } from "../core/events.ts";
import { killGroup } from "../core/helpers.ts";
import type { Usage } from "../core/messages.ts";

/** After an interrupt, how long a child gets to stop on its own before it is killed. */
const INTERRUPT_GRACE_MS = 5000;
/** How much of the child's stderr is kept for the error of a run that ended without a result. */
const STDERR_TAIL_CHARS = 2000;

/** How to start the harness CLI: the program and its leading arguments (`node bin/harness.js`). */
export type HarnessCommand = [string, ...string[]];

/** The harness CLI this process was started as, for running tasks as its children. */
export function currentHarnessCommand(): HarnessCommand {
  return [process.execPath, ...process.execArgv, process.argv[1] as string];
}

/** What a child run left: its final event (absent when it died without one), session and exit. */
export interface ChildRun {
  done?: RunResult & { cost?: number };
  sessionId?: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

export interface ChildRunOptions {
  command: HarnessCommand;
  prompt: string;
  /** CLI flags besides the ones every task gets (provider, model, base URL, max turns). */
  flags: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The run's token total so far, after each model call (for the progress line). */
  onUsage?(total: Usage): void;
}

/** Runs one prompt to completion in a child harness; never throws for what the child does. */
export function runHarnessChild(options: ChildRunOptions): Promise<ChildRun> {
  const [program, ...leading] = options.command;
  const args = [...leading, "--output", "stream-json", "--yes", ...options.flags];
  return new Promise((resolve) => {
    // Its own process group: a Ctrl-C at the terminal reaches the batch, which then interrupts
    // each child once, rather than every child getting it (and a second one) from the terminal.
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const run: ChildRun = { exitCode: null, signal: null, stderrTail: "" };
    child.stdin.on("error", () => {}); // a child that exits before reading its prompt
    child.stdin.end(options.prompt);
    child.stderr.on(
      "data",
      (chunk: Buffer) => (run.stderrTail = (run.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS)),
    );
    createInterface({ input: child.stdout }).on("line", (line) => {
      let event: { type?: string; sessionId?: string; total?: Usage };
      try {
        event = JSON.parse(line);
      } catch {
        return; // stdout carries only events; anything else is not ours to read
      }
      if (event.type === "start" && event.sessionId) run.sessionId = event.sessionId;
      else if (event.type === "usage" && event.total) options.onUsage?.(event.total);
      else if (event.type === "done") run.done = event as ChildRun["done"];
    });
    let killTimer: NodeJS.Timeout | undefined;
    const interrupt = () => {
      child.kill("SIGINT");
      killTimer = setTimeout(() => killGroup(child.pid), INTERRUPT_GRACE_MS);
    };
    if (options.signal.aborted) interrupt();
    else options.signal.addEventListener("abort", interrupt, { once: true });
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(killTimer);
      options.signal.removeEventListener("abort", interrupt);
      resolve({ ...run, exitCode: code, signal, stderrTail: run.stderrTail.trim() });
    };
    child.on("error", (error) => {
      run.stderrTail = `cannot start the harness: ${error.message}`;
      finish(null, null);
    });
    // Whatever the child left running in its group goes with it (and lets its pipes close).
    child.on("exit", () => killGroup(child.pid));
    child.on("close", finish);
  });
}
