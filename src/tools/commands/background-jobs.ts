// Processes the bash tool starts with `background: true`: dev servers, watchers and long builds
// that must not hold up the loop. Each runs in the session's command helper like any command
// (so in the same sandbox, after the same approval), as `bash -c` in a process group of its own,
// with no time limit. They live as long as the session: `close` ends them (SIGTERM to the whole
// tree, SIGKILL after the grace) and waits for that. A harness that dies without closing
// (SIGTERM, kill -9) closes the helper's stdin with its own exit, and the helper then SIGKILLs
// every tree it runs (with a sandbox, bwrap's --die-with-parent ends it all as well).
import { openSpillFile, spillDirOf } from "../../core/output-spill.ts";
import type { ToolContext, ToolOutput } from "../../core/tool.ts";
import { BoundedCapture, KEEP_BYTES, outputForModel } from "./bounded-capture.ts";
import { exitStatus, type HostedCommand, KILL_GRACE_MS, PIPE_DRAIN_MS, runHosted } from "./command-host.ts";

/**
 * How long a background start waits for the first output before it answers, from the moment its
 * bash has started (a session's first command also waits for the helper, which takes as long
 * as a node start): long enough for a server to print the port it listens on, short enough that
 * the loop is not held up. It answers sooner when the process ends or has written
 * FIRST_OUTPUT_LINES lines; STARTUP_LIMIT_MS bounds the wait for the helper.
 */
const FIRST_OUTPUT_MS = 1000;
const STARTUP_LIMIT_MS = 30_000;
const FIRST_OUTPUT_LINES = 20;
/** Background processes running at once; another is refused until one ends or is killed. */
const MAX_RUNNING = 8;
/** Ended processes kept (their last output, and /ps); the oldest beyond this are dropped. */
const MAX_ENDED_KEPT = 16;
/** How long a kill waits for the tree to end: the grace between SIGTERM and SIGKILL, and then some. */
const KILL_WAIT_MS = KILL_GRACE_MS + 3000;
/**
 * Most bytes one read's spill file takes: unlike a foreground command, a background process has
 * no time limit, and one that floods while nobody reads must not fill the disk.
 */
const MAX_SPILL_BYTES = 16 * 1024 * 1024;
/** Longest bash_output may wait for something new. */
export const MAX_OUTPUT_WAIT_S = 120;
/** Where the session's processes are kept in ToolContext.sessionState. */
const STATE_KEY = "background-jobs";

/** One line about a background process, for /ps. */
export interface BackgroundJobInfo {
  id: number;
  command: string;
  startedAt: number;
  /** `running`, or how it ended (`exit code: 0`, `killed by SIGTERM`). */
  status: string;
}

type StartOptions = Pick<ToolContext, "cwd" | "env" | "wrapCommand" | "secrets" | "spillDir">;

/** One background process: its output since the last read, and how it ended once it has. */
class BackgroundJob {
  readonly startedAt = Date.now();
  private capture: BoundedCapture;
  private linesUnread = 0;
  /** The status line once it has ended. */
  private ending: string | undefined;
  private hasStarted = false;
  private isFailure = false;
  private readonly hosted: HostedCommand;
  private readonly wakers = new Set<() => void>();
  /** The helper could not start it (CommandListener.lost): the next read stops the run with this. */
  private stopsRun: string | undefined;

  constructor(
    readonly id: number,
    readonly command: string,
    private readonly options: StartOptions,
  ) {
    this.capture = this.newCapture();
    let drain: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(drain);
      this.hosted.forget();
    };
    this.hosted = runHosted(
      command,
      { cwd: options.cwd, env: options.env ?? process.env, wrapCommand: options.wrapCommand },
      {
        started: () => {
          this.hasStarted = true;
          this.wake();
        },
        data: (chunk) => {
          this.capture.add(chunk);
          this.linesUnread += chunk.filter((byte) => byte === 0x0a).length;
          this.wake();
        },
        exited: (code, signal) => {
          this.end(exitStatus(code, signal), code !== 0);
          // Children that left its group may still hold the pipes: read them a moment longer.
          drain = setTimeout(done, PIPE_DRAIN_MS);
        },
        closed: done,
        lost: (reason, didStart, stopsRun) => {
          this.stopsRun = stopsRun;
          this.end(`[${didStart ? "lost" : "did not start"}: ${reason}]`, true);
        },
      },
    );
  }

  get isRunning(): boolean {
    return this.ending === undefined;
  }

  get info(): BackgroundJobInfo {
    const status = this.ending?.slice(1, -1) ?? "running";
    return { id: this.id, command: this.command, startedAt: this.startedAt, status };
  }

  /** Waits for the first output (see FIRST_OUTPUT_MS), or less when `signal` aborts. */
  async firstOutput(signal: AbortSignal): Promise<void> {
    const startup = Date.now() + STARTUP_LIMIT_MS;
    while (!this.hasStarted && this.isRunning && Date.now() < startup && !signal.aborted)
      await this.changed(startup - Date.now(), signal);
    const until = Date.now() + FIRST_OUTPUT_MS;
    while (this.isRunning && this.linesUnread < FIRST_OUTPUT_LINES && Date.now() < until && !signal.aborted)
      await this.changed(until - Date.now(), signal);
  }

  /**
   * Lets it run `ms` longer, less if it ends first. Not until the next output: a build that
   * prints all along can then be waited for in one call, and what a server prints in a
   * moment comes together.
   */
  async collect(ms: number, signal: AbortSignal): Promise<void> {
    const until = Date.now() + ms;
    while (this.isRunning && Date.now() < until && !signal.aborted) await this.changed(until - Date.now(), signal);
  }

  /** Output since the last read, then where the process stands; `heading` goes first. */
  read(heading?: string): ToolOutput {
    const captured = this.capture.finish();
    this.capture = this.newCapture();
    this.linesUnread = 0;
    const output = outputForModel(captured, () => this.openSpill(), this.options.secrets);
    const status = this.ending ?? `[running in the background as id ${this.id}]`;
    const parts = [heading, output, status].filter((part) => part);
    const stopsRun = this.stopsRun;
    this.stopsRun = undefined;
    return { content: parts.join("\n"), isError: this.isFailure, summary: status, ...(stopsRun ? { stopsRun } : {}) };
  }

  /** SIGTERM to its tree, SIGKILL after the grace; resolves once it has ended (or KILL_WAIT_MS passed). */
  async kill(): Promise<void> {
    if (!this.isRunning) return;
    this.hosted.kill();
    const until = Date.now() + KILL_WAIT_MS;
    while (this.isRunning && Date.now() < until) await this.changed(until - Date.now());
  }

  private end(status: string, isFailure: boolean): void {
    if (this.ending !== undefined) return;
    this.ending = status;
    this.isFailure = isFailure;
    this.wake();
  }

  private changed(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      this.wakers.add(done);
    });
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }

  private newCapture(): BoundedCapture {
    return new BoundedCapture(KEEP_BYTES, () => this.openSpill(), this.options.secrets, MAX_SPILL_BYTES);
  }

  private openSpill() {
    return openSpillFile(spillDirOf(this.options), `background-${this.id}`);
  }
}

/** A session's background processes. */
export class BackgroundJobs {
  private readonly jobs = new Map<number, BackgroundJob>();
  private nextId = 1;

  /** A new set, in the session state tools are given. */
  static into(sessionState: Map<string, unknown>): BackgroundJobs {
    const jobs = new BackgroundJobs();
    sessionState.set(STATE_KEY, jobs);
    return jobs;
  }

  /** The session's set, when the tools run in a session that has one. */
  static of(context: Pick<ToolContext, "sessionState">): BackgroundJobs | undefined {
    const jobs = context.sessionState?.get(STATE_KEY);
    return jobs instanceof BackgroundJobs ? jobs : undefined;
  }

  get runningCount(): number {
    return [...this.jobs.values()].filter((job) => job.isRunning).length;
  }

  list(): BackgroundJobInfo[] {
    return [...this.jobs.values()].map((job) => job.info);
  }

  /** Starts a process, or says why it cannot. */
  start(command: string, options: StartOptions): BackgroundJob | string {
    if (this.runningCount >= MAX_RUNNING)
      return `${MAX_RUNNING} background processes are already running; stop one with bash_kill first`;
    const ended = [...this.jobs.values()].filter((job) => !job.isRunning);
    for (const job of ended.slice(0, Math.max(0, ended.length - MAX_ENDED_KEPT + 1))) this.jobs.delete(job.id);
    const job = new BackgroundJob(this.nextId++, command, options);
    this.jobs.set(job.id, job);
    return job;
  }

  /** The process with this id, or a message for the model naming the ones there are. */
  find(id: number): BackgroundJob | string {
    const job = this.jobs.get(id);
    if (job) return job;
    const ids = [...this.jobs.keys()];
    return `no background process ${id}${ids.length > 0 ? ` (there are: ${ids.join(", ")})` : " (none was started)"}`;
  }

  /** Ends every running process and waits for them (each bounded by KILL_WAIT_MS). */
  async close(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((job) => job.kill()));
  }
}

/** The session's background process with this id (bash_output, bash_kill), or a message for the model. */
export function backgroundJob(context: Pick<ToolContext, "sessionState">, id: number): BackgroundJob | string {
  return BackgroundJobs.of(context)?.find(id) ?? "no background processes in this session";
}

/** The bash tool with `background: true`: start, wait briefly for the first output, answer with the id. */
export async function startInBackground(command: string, context: ToolContext): Promise<ToolOutput> {
  const jobs = BackgroundJobs.of(context);
  if (!jobs)
    return { content: "background processes are not available here: run the command without it", isError: true };
  const job = jobs.start(command, context);
  if (typeof job === "string") return { content: job, isError: true };
  await job.firstOutput(context.signal);
  return job.read(
    `[background process ${job.id}: bash_output reads what it writes next, bash_kill stops it; it ends with the session]`,
  );
}
