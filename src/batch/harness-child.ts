// One task's agent run: the harness CLI itself as a child process (`-p` from stdin,
// `--output stream-json`, `--yes`). A child per task means a task that crashes, leaks or hangs
// cannot take the pool down with it, each run gets the CLI's own handling of config, hooks,
// sessions and signals, and an interrupt or kill reaches exactly that task.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { RunResult } from "../core/events.ts";
import { EMPTY_USAGE, type Usage } from "../core/messages.ts";
import { killGroup } from "../shared/helpers.ts";

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
  /** What the child said it runs: its start event's provider and model, its replies' wire API. */
  provider?: string;
  model?: string;
  api?: string;
  /** The model of its last model call (its last usage event): another than `model` after a fallback. */
  answeredBy?: string;
  /** Spent so far, from its usage events: what a child that died without a `done` had spent. */
  spent: Spend;
  /** Model calls so far (its usage events). */
  calls: number;
  /** A model call had begun (`turn_start`) and not yet answered when the stream ended: the call in flight. */
  callOpen: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

/** Tokens spent, and their cost in USD (undefined while some model's price is unknown). */
export interface Spend {
  usage: Usage;
  cost: number | undefined;
}

/** The price of one model call's tokens, USD; undefined when the model's price is unknown. */
export type PriceCall = (model: string, usage: Usage) => number | undefined;

/** Process groups to end if this process dies first (reaper.ts). */
export interface GroupTracker {
  track(pid: number): void;
  untrack(pid: number): void;
}

export interface ChildRunOptions {
  command: HarnessCommand;
  prompt: string;
  /** CLI flags besides the ones every task gets (provider, model, base URL, max turns). */
  flags: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Prices the usage events, so what a run spends is known while it runs (and if it dies). */
  price?: PriceCall;
  /** What the run has spent so far, after each model call (progress line, cost caps). */
  onSpend?(spent: Spend): void;
  /** The child said which session it records and what it runs (its start event). */
  onStart?(started: { sessionId?: string; provider?: string; model?: string }): void;
  groups?: GroupTracker;
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
    const run: ChildRun = {
      spent: { usage: { ...EMPTY_USAGE }, cost: 0 },
      calls: 0,
      callOpen: false,
      exitCode: null,
      signal: null,
      stderrTail: "",
    };
    if (child.pid) options.groups?.track(child.pid);
    child.stdin.on("error", () => {}); // a child that exits before reading its prompt
    child.stdin.end(options.prompt);
    child.stderr.on(
      "data",
      (chunk: Buffer) => (run.stderrTail = (run.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS)),
    );
    createInterface({ input: child.stdout }).on("line", (line) => {
      let event: ChildEvent;
      try {
        event = JSON.parse(line);
      } catch {
        return; // stdout carries only events; anything else is not ours to read
      }
      readEvent(event, run, options);
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
    child.on("exit", () => {
      killGroup(child.pid);
      if (child.pid) options.groups?.untrack(child.pid);
    });
    child.on("close", finish);
  });
}

/** The parts of the child's stream-json events the batch reads. */
interface ChildEvent {
  type?: string;
  sessionId?: string;
  provider?: string;
  model?: string;
  usage?: Usage;
  total?: Usage;
  message?: { role?: string; api?: string; stopReason?: string };
}

function readEvent(event: ChildEvent, run: ChildRun, options: ChildRunOptions): void {
  switch (event.type) {
    case "start":
      run.sessionId = event.sessionId;
      run.provider = event.provider;
      run.model = event.model;
      options.onStart?.({ sessionId: event.sessionId, provider: event.provider, model: event.model });
      return;
    case "turn_start":
      run.callOpen = true;
      return;
    case "message":
      if (event.message?.role !== "assistant") return;
      if (event.message.api) run.api ??= event.message.api;
      // A reply cut off by the interrupt is the call in flight's; any other answered it.
      if (event.message.stopReason !== "aborted") run.callOpen = false;
      return;
    case "usage": {
      if (!event.total || !event.usage) return;
      // A usage event without a model is the run's own model's (a subagent's names its own).
      const model = event.model ?? run.model ?? "";
      run.answeredBy = model || undefined;
      const cost = options.price?.(model, event.usage);
      const sum = run.spent.cost === undefined || cost === undefined ? undefined : run.spent.cost + cost;
      run.spent = { usage: event.total, cost: sum === undefined ? undefined : Number(sum.toFixed(6)) };
      run.calls++;
      run.callOpen = false;
      options.onSpend?.(run.spent);
      return;
    }
    case "done":
      run.done = event as unknown as ChildRun["done"];
      return;
    default:
      return; // the other events say nothing the batch records
  }
}
