// Runs the bash tool's commands through one long-lived helper process (command-helper.ts)
// instead of forking the harness for each one. With a sandbox, the helper runs inside it, so
// the sandbox is set up once (at the first command) rather than per command; each command is
// still a fresh `bash -c` in its own process group, with the environment and working
// directory of its request. Forking a small helper is cheaper than forking the harness, and it
// happens off the harness's main thread.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import type { WrapCommand } from "../../core/tool.ts";
import { killGroup } from "../../shared/helpers.ts";
import { FRAME, FRAME_HEADER_BYTES, helperSource } from "./command-helper.ts";

/** Rewrites an argv to run inside the sandbox (ToolContext.wrapCommand). */

/**
 * What to do when the helper cannot start, said with the reason. `--sandbox off` is named as the
 * user's own choice, never taken for them: the sandbox is not dropped because it failed.
 */
const SANDBOX_START_FIX =
  "no command can run in the sandbox until that is fixed: check that what it names exists and can be read (after an upgrade, start harness again), or run without the sandbox (--sandbox off) if you accept that";
const HELPER_START_FIX = "no command can run until that is fixed";
/** After SIGTERM, how long a process tree gets before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** After a command's shell exits, how long to wait for background children still holding its pipes. */
export const PIPE_DRAIN_MS = 200;
/** A helper with nothing to run for this long exits; the next command starts another. */
const HELPER_IDLE_MS = 10 * 60_000;
/** How much of the helper's own stderr is kept to explain why it stopped. */
const HELPER_STDERR_BYTES = 2000;
/**
 * The largest frame a helper sends (its output frames carry one pipe read, 64 KiB at most). A
 * command can write into the helper's stdout (pidfd_getfd, ptrace): a larger length is a forged
 * or garbled frame, and waiting for its end would let the harness's memory grow without bound.
 */
const MAX_FRAME_BYTES = 1024 * 1024;

/** What a command's caller hears. Exactly one of `closed` or `lost` ends it (after `exited`, for `closed`). */
export interface CommandListener {
  /** The helper has started its bash (a new helper takes a while to start first). */
  started?(): void;
  data(chunk: Buffer): void;
  exited(code: number | null, signal: string | null): void;
  /** Every holder of its output has closed it. */
  closed(): void;
  /**
   * It could not start, or the helper stopped under it; `reason` says which, for the model.
   * `stopsRun` is set when the helper itself could not start: no command can run until the
   * cause is fixed, so the run should stop and say so (ToolOutput.stopsRun).
   */
  lost(reason: string, didStart: boolean, stopsRun?: string): void;
}

/** A command running in the helper. */
export interface HostedCommand {
  /** SIGTERM to its whole tree, SIGKILL after KILL_GRACE_MS. */
  kill(): void;
  /** The caller is done: stop reading its output (background children may hold it open). */
  forget(): void;
  /** Set when this command had to start a new helper because the last one stopped: what happened. */
  notice?: string;
}

/** How a command ended, as the last line of its result. */
export function exitStatus(code: number | null, signal: string | null): string {
  if (signal) return `[killed by ${signal}]`;
  return code === null ? "[no exit code]" : `[exit code: ${code}]`;
}

/** One helper process and the commands running in it. */
class CommandHost {
  private readonly child: ChildProcess;
  private readonly listeners = new Map<number, CommandListener>();
  /** Host process ids of commands' groups, for when the helper dies outside a PID namespace. */
  private readonly groups = new Map<number, number>();
  private nextId = 1;
  private pending: Buffer = Buffer.alloc(0);
  private stderrTail = "";
  private idleTimer: NodeJS.Timeout | undefined;
  /** Why the helper stopped, once it has. */
  stopped: string | undefined;
  /** Whether the harness ended it (idle, replaced): nothing the next command needs to hear. */
  private isClosedOnPurpose = false;
  /** Replaced by a helper with a newer policy: it ends once its commands have. */
  private isRetiring = false;
  /** Whether it has sent a frame (one that stops before saying anything may never have run). */
  private hasSpoken = false;

  constructor(
    readonly key: string,
    argv: string[],
    /** What starts it, for a failure to start: "the sandbox" or "the command helper". */
    private readonly starter: string,
    /** What the user can do when it cannot start. */
    private readonly fixForStart: string,
  ) {
    const [program, ...args] = argv;
    // Its own group, as each command had: a Ctrl-C at the terminal reaches the harness only.
    this.child = spawn(program, args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    // An idle helper never keeps the harness alive; a running command does (armIdleTimer).
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr])
      (stream as unknown as { unref(): void }).unref();
    this.child.stdin?.on("error", () => {}); // a dead helper: reported by "exit" below
    this.child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-HELPER_STDERR_BYTES);
    });
    this.child.on("error", (error) => this.stop(`could not start: ${error.message}`, true));
    // "close", not "exit": by then every frame it wrote has been read, so every started command's group is known.
    // An exit below 128 before any frame is the sandbox (or node) refusing to start it, never a
    // command's doing: a command can kill the helper, which bwrap reports as 128 + the signal.
    this.child.on("close", (code, signal) =>
      this.stop(
        signal ? `killed by ${signal}` : `exited with code ${code}`,
        !this.hasSpoken && signal === null && code !== null && code > 0 && code < 128,
      ),
    );
    this.armIdleTimer();
  }

  run(
    command: string,
    options: { cwd: string; env: Record<string, string | undefined> },
    listener: CommandListener,
  ): HostedCommand {
    const id = this.nextId++;
    this.listeners.set(id, listener);
    this.armIdleTimer();
    this.send({ id, command, cwd: options.cwd, env: options.env });
    return { kill: () => this.send({ id, kill: true }), forget: () => this.forget(id) };
  }

  /** Ends the helper: every command in it is killed. */
  close(): void {
    this.isClosedOnPurpose = true;
    this.child.stdin?.end();
  }

  /** Ends the helper once its running commands have finished. */
  retire(): void {
    this.isRetiring = true;
    if (this.listeners.size === 0) this.close();
  }

  /** Why it stopped, when the next command should be told (it was not the harness's doing). */
  get unexpectedStop(): string | undefined {
    return this.isClosedOnPurpose ? undefined : this.stopped;
  }

  private forget(id: number): void {
    if (!this.listeners.delete(id)) return;
    this.groups.delete(id);
    this.send({ id, forget: true });
    if (this.isRetiring && this.listeners.size === 0) this.close();
    else this.armIdleTimer();
  }

  private send(request: object): void {
    if (this.stopped === undefined) this.child.stdin?.write(`${JSON.stringify(request)}\n`);
  }

  private read(chunk: Buffer): void {
    if (this.stopped !== undefined) return; // failed: the rest is not to be trusted
    this.hasSpoken = true;
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buffer.length >= FRAME_HEADER_BYTES) {
      const length = buffer.readUInt32BE(5);
      if (length > MAX_FRAME_BYTES) return this.fail(`it sent a frame of ${length} bytes`);
      if (buffer.length < FRAME_HEADER_BYTES + length) break;
      this.deliver(buffer[0], buffer.readUInt32BE(1), buffer.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length));
      buffer = buffer.subarray(FRAME_HEADER_BYTES + length);
    }
    this.pending = buffer;
  }

  private deliver(type: number, id: number, payload: Buffer): void {
    const listener = this.listeners.get(id);
    if (!listener) return; // forgotten: a background child still writing
    switch (type) {
      case FRAME.started: {
        // Killed by the harness if the helper dies: only a real child of the helper, never a
        // process id a sandboxed command forged into the helper's output to have a host process killed.
        const pid = Number(payload.toString());
        if (Number.isInteger(pid) && pid > 0 && isChildOf(pid, this.child.pid)) this.groups.set(id, pid);
        return listener.started?.();
      }
      case FRAME.data:
        return listener.data(Buffer.from(payload)); // a copy: `payload` shares the frame buffer
      case FRAME.exited: {
        const [code, signal] = JSON.parse(payload.toString()) as [number | null, string | null];
        return listener.exited(code, signal);
      }
      case FRAME.closed:
        return listener.closed();
      case FRAME.failed:
        this.listeners.delete(id);
        this.armIdleTimer();
        return listener.lost(`failed to start bash: ${payload.toString()}`, false);
      default:
        return; // a newer helper's frame this harness does not know
    }
  }

  /** The helper broke the protocol: end it and everything it runs. */
  private fail(reason: string): void {
    this.pending = Buffer.alloc(0);
    this.child.kill("SIGKILL");
    this.stop(reason);
  }

  private stop(reason: string, didNotStart = false): void {
    if (this.stopped !== undefined) return;
    clearTimeout(this.idleTimer);
    const said = this.stderrTail.trim().split("\n").at(-1);
    this.stopped = said ? `${reason}: ${said}` : reason;
    // Outside a PID namespace the commands outlive their helper: end them here.
    for (const pid of this.groups.values()) killGroup(pid);
    // Never started (bwrap could not exec the helper, say): no command ran, and the next will not
    // either until the cause is fixed, so the model and the user hear why, as a failed start.
    const cannotStart = `${this.starter} could not start the command (${this.stopped})`;
    for (const listener of this.listeners.values())
      if (didNotStart) listener.lost(cannotStart, false, `${cannotStart}; ${this.fixForStart}`);
      else
        listener.lost(
          `the command helper stopped (${this.stopped}) while this command ran; its processes were killed`,
          true,
        );
    this.listeners.clear();
    (this.child.stdout as unknown as { unref(): void }).unref();
  }

  /** Called whenever the set of running commands changes. */
  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    const stdout = this.child.stdout as unknown as { ref(): void; unref(): void };
    if (this.listeners.size > 0) return stdout.ref();
    stdout.unref();
    this.idleTimer = setTimeout(() => this.close(), HELPER_IDLE_MS);
    this.idleTimer.unref();
  }
}

/**
 * Whether `pid`'s parent is `parent`. Linux reads /proc; elsewhere (macOS, where commands cannot
 * reach the helper's output the same way) it is taken on trust.
 */
function isChildOf(pid: number, parent: number | undefined): boolean {
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
  } catch {
    return false; // already gone: nothing to kill
  }
}

/** The harness's own PID namespace: the helper compares its own with it to know whether it has one to itself. */
function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

let bareArgv: string[] | undefined;

/** The argv that starts a helper, inside the sandbox when `wrap` is given. */
function helperArgv(wrap: WrapCommand | undefined, cwd: string): string[] {
  bareArgv ??= [process.execPath, "-e", helperSource(KILL_GRACE_MS), pidNamespace()];
  return wrap ? wrap(bareArgv, cwd) : bareArgv;
}

/** The current helper per sandbox (one per session: each session has its own wrapper); `null` for no sandbox. */
const hosts = new Map<WrapCommand | null, CommandHost>();

/**
 * Starts `command` in the helper for this sandbox, starting the helper first when there is
 * none yet or the last one stopped. The sandbox's arguments are worked out again for every
 * command (a few `stat` calls) and a changed policy (say `.git/hooks` now exists, and must be
 * read-only) gets a new helper, so a command never runs under an older policy than it would
 * have had in a sandbox of its own. A replaced helper finishes its running commands first.
 *
 * A sandbox that could not start is tried once more when its arguments have changed since: a
 * host socket it was to cover (bwrap.ts) vanished between the scan and bwrap's start ("Can't
 * create file at …/bus"), a race with whatever removed it, not a broken sandbox; the command had
 * not run. The same arguments failing again is a cause to report (ToolOutput.stopsRun).
 */
export function runHosted(
  command: string,
  options: { cwd: string; env: Record<string, string | undefined>; wrapCommand?: WrapCommand },
  listener: CommandListener,
): HostedCommand {
  let hasRetried = false;
  let attempt: { hosted: HostedCommand; key: string };
  const retrying: CommandListener = {
    started: () => listener.started?.(),
    data: (chunk) => listener.data(chunk),
    exited: (code, signal) => listener.exited(code, signal),
    closed: () => listener.closed(),
    lost(reason, didStart, stopsRun) {
      const isNewSandbox = helperArgv(options.wrapCommand, options.cwd).join("\0") !== attempt.key;
      if (stopsRun === undefined || didStart || hasRetried || !isNewSandbox)
        return listener.lost(reason, didStart, stopsRun);
      hasRetried = true;
      attempt = startInHelper(command, options, retrying);
    },
  };
  attempt = startInHelper(command, options, retrying);
  return {
    kill: () => attempt.hosted.kill(),
    forget: () => attempt.hosted.forget(),
    notice: attempt.hosted.notice,
  };
}

function startInHelper(
  command: string,
  options: { cwd: string; env: Record<string, string | undefined>; wrapCommand?: WrapCommand },
  listener: CommandListener,
): { hosted: HostedCommand; key: string } {
  const slot = options.wrapCommand ?? null;
  const argv = helperArgv(options.wrapCommand, options.cwd);
  const key = argv.join("\0");
  let host = hosts.get(slot);
  const lastStop = host?.unexpectedStop;
  if (host && host.key !== key) host.retire();
  if (!host || host.stopped !== undefined || host.key !== key) {
    host = options.wrapCommand
      ? new CommandHost(key, argv, "the sandbox", SANDBOX_START_FIX)
      : new CommandHost(key, argv, "the command helper", HELPER_START_FIX);
    hosts.set(slot, host);
  }
  const notice =
    lastStop === undefined
      ? undefined
      : `the command helper had stopped (${lastStop}); a new one was started for this command`;
  return { hosted: { ...host.run(command, options, listener), notice }, key };
}

/**
 * A session is done with its sandbox: its helper ends once its running commands have (a
 * long-lived `harness acp` would otherwise keep one idle process per closed session until
 * HELPER_IDLE_MS). Without a sandbox the helper is shared, and the next command starts another.
 */
export function closeHosted(wrapCommand: WrapCommand | undefined): void {
  const slot = wrapCommand ?? null;
  hosts.get(slot)?.retire();
  hosts.delete(slot);
}
