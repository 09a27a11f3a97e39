// A session's language servers: one per workspace and server record, started on the first file it
// serves, kept for the session, restarted once after a crash, stopped with the session. What goes
// wrong is told to the user once (warn) and never to the model: a tool result only ever gains
// diagnostics, never an LSP error.
import path from "node:path";
import { findProgram } from "./find-program.ts";
import { LanguageServer } from "./language-server.ts";
import type { Diagnostic } from "./lsp-messages.ts";
import { splitByNewness } from "./newness.ts";
import { type LanguageServerSpec, serverFor } from "./server-specs.ts";
import { specForUntrusted } from "./untrusted-folder.ts";

/**
 * How long one edit may wait for its diagnostics, start-up included, when its server is already
 * running (warm) and when it must start first (cold). Measured (2 cores, load 20): a warm
 * TypeScript server answers in ~50 ms and pyright in ~340 ms, so 3 s holds a hung server's cost
 * to one short wait; a cold one takes 17-22 s to its first diagnostics at that load, so 10 s is a
 * compromise: the check gives up, the server goes on loading and later edits get their
 * diagnostics (reads start servers in the background for this). docs/lsp.md has the figures.
 * HARNESS_LSP_WAIT_MS sets both (tests on a loaded machine set a long one).
 */
const WARM_WAIT_MS = 3_000;
const COLD_WAIT_MS = 10_000;
/**
 * How long one lsp tool query may wait, start-up included: the model asked for it, so it may wait
 * longer than an edit's note, but a hung server still costs the step no more than this.
 */
const QUERY_WAIT_MS = 30_000;
/** How long a server has to exit after `shutdown` and `exit` before it is killed. */
const STOP_WAIT_MS = 2_000;
/** A crashed server is started again this many times, then left stopped for the session. */
const MAX_RESTARTS = 1;

/** A server's state, for /lsp. */
export interface ServerStatus {
  name: string;
  command: string;
  state: "starting" | "running" | "crashed" | "failed" | "stopped";
  /** Why it failed or crashed, or the last problem it had (a timed-out wait). */
  problem?: string;
  restarts: number;
  /** Files with diagnostics now, by path relative to the workspace. */
  files: Array<{ file: string; diagnostics: Diagnostic[] }>;
}

/** One edit's diagnostics: those it brought and those that were there before it. */
export interface EditDiagnostics {
  server: string;
  fresh: Diagnostic[];
  existing: Diagnostic[];
  /** A command changed a file harness had no diagnostics for: all are in `fresh`, though some may be older. */
  unseen?: boolean;
}

interface Slot {
  spec: LanguageServerSpec;
  state: ServerStatus["state"];
  problem?: string;
  restarts: number;
  running?: Promise<LanguageServer | undefined>;
  server?: LanguageServer;
  /** One check at a time per server, in order (a read's warm-up, then the edit that follows it). */
  queue: Promise<unknown>;
  /** The diagnostics harness last got for each file, with the text they were for. */
  checked: Map<string, { text: string; diagnostics: Diagnostic[] }>;
}

export interface LanguageServersOptions {
  root: string;
  env: Record<string, string | undefined>;
  specs: readonly LanguageServerSpec[];
  /** Whether the workspace's own node_modules/.bin may provide a server (it is the project's code). */
  isProjectTrusted: boolean;
  /** Tells the user (not the model) what went wrong. */
  warn(message: string): void;
}

export class LanguageServers {
  private readonly slots = new Map<string, Slot>();
  private readonly waitOverride: number | undefined;
  private closed = false;

  constructor(private readonly options: LanguageServersOptions) {
    const wait = Number(options.env.HARNESS_LSP_WAIT_MS);
    this.waitOverride = Number.isFinite(wait) && wait > 0 ? wait : undefined;
  }

  /** Starts the server for `file` (if any) and learns its diagnostics, without waiting: a read warms the server up. */
  warm(file: string, text: string): void {
    const slot = this.slotFor(file);
    if (!slot || slot.state === "failed") return;
    void this.checkIn(slot, file, text, this.waitOverride ?? COLD_WAIT_MS).catch(() => undefined);
  }

  /**
   * The diagnostics of `file` now that an edit made it `text` (it was `before`, or did not exist),
   * split into new and existing; undefined when no server serves it or none answered in time. After
   * a command (`byCommand`) the text before is unknown: the baseline is what harness last got for
   * the file, and with none it is `unseen`. Calls given the same `bound` share one wait.
   */
  async afterEdit(
    file: string,
    text: string,
    before: string | undefined,
    { byCommand = false, bound = {} }: { byCommand?: boolean; bound?: { deadline?: number } } = {},
  ): Promise<EditDiagnostics | undefined> {
    const slot = this.slotFor(file);
    if (!slot || slot.state === "failed") return undefined;
    bound.deadline ??= Date.now() + (this.waitOverride ?? (slot.state === "running" ? WARM_WAIT_MS : COLD_WAIT_MS));
    const { deadline } = bound;
    const known = slot.checked.get(file);
    let baseline = known && (byCommand || known.text === before) ? known.diagnostics : undefined;
    if (!baseline && before !== undefined && !byCommand)
      baseline = await this.checkIn(slot, file, before, deadline - Date.now());
    const after = await this.checkIn(slot, file, text, deadline - Date.now());
    if (!after) return undefined;
    const unseen = byCommand && !baseline;
    return { server: slot.spec.name, ...splitByNewness(after, baseline ?? []), ...(unseen ? { unseen } : {}) };
  }

  /** The running server for `file`, started if need be (for the lsp tool's queries). */
  async serverOf(file: string): Promise<{ server: LanguageServer; name: string; languageId: string } | undefined> {
    const slot = this.slotFor(file);
    const match = serverFor(file, this.options.specs);
    if (!slot || !match) return undefined;
    const server = await this.started(slot);
    return server?.isRunning ? { server, name: match.spec.name, languageId: match.languageId } : undefined;
  }

  /** The diagnostics of `file` as `text` now (for the lsp tool); undefined when none came in time. */
  async diagnosticsOf(file: string, text: string): Promise<Diagnostic[] | undefined> {
    const slot = this.slotFor(file);
    if (!slot || slot.state === "failed") return undefined;
    const known = slot.checked.get(file);
    if (known?.text === text) return known.diagnostics;
    return this.checkIn(slot, file, text, this.queryWaitMs);
  }

  /** How long one lsp tool query may wait. */
  get queryWaitMs(): number {
    return this.waitOverride ?? QUERY_WAIT_MS;
  }

  /** Why the server for `file` is not answering, when harness knows (not installed, did not start, crashed). */
  problemOf(file: string): string | undefined {
    const match = serverFor(file, this.options.specs);
    return match ? this.slots.get(match.spec.name)?.problem : undefined;
  }

  /** Every running server (for workspace-wide queries). */
  running(): LanguageServer[] {
    return [...this.slots.values()].flatMap((slot) => (slot.server?.isRunning ? [slot.server] : []));
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map((slot) => ({
      name: slot.spec.name,
      command: slot.spec.command,
      state: slot.state,
      problem: slot.problem,
      restarts: slot.restarts,
      files: [...slot.checked.entries()]
        .filter(([, entry]) => entry.diagnostics.length > 0)
        .map(([file, entry]) => ({ file: path.relative(this.options.root, file), diagnostics: entry.diagnostics })),
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        const server = await slot.running?.catch(() => undefined);
        slot.state = "stopped";
        await server?.stop(STOP_WAIT_MS);
      }),
    );
  }

  private slotFor(file: string): Slot | undefined {
    const match = serverFor(file, this.options.specs);
    if (!match || this.closed) return undefined;
    let slot = this.slots.get(match.spec.name);
    if (!slot) {
      slot = { spec: match.spec, state: "starting", restarts: 0, queue: Promise.resolve(), checked: new Map() };
      this.slots.set(match.spec.name, slot);
    }
    return slot;
  }

  /** Runs one check after the server's others, within `boundMs` from now. */
  private checkIn(slot: Slot, file: string, text: string, boundMs: number): Promise<Diagnostic[] | undefined> {
    const deadline = Date.now() + boundMs;
    const run = async () => {
      const server = await withDeadline(this.started(slot), deadline);
      const match = serverFor(file, [slot.spec]);
      if (!server || !match || Date.now() >= deadline) return undefined;
      const diagnostics = await server.check(file, match.languageId, text, deadline - Date.now());
      if (diagnostics) slot.checked.set(file, { text, diagnostics });
      else
        this.problem(
          slot,
          `${slot.spec.name} gave no diagnostics for ${path.relative(this.options.root, file)} in time`,
        );
      return diagnostics;
    };
    const result = slot.queue.then(run, run);
    slot.queue = result.catch(() => undefined);
    return withDeadline(result, deadline);
  }

  /** The slot's server, started (or restarted after a crash) if need be; undefined when it cannot run. */
  private started(slot: Slot): Promise<LanguageServer | undefined> {
    if (slot.running && slot.state !== "crashed") return slot.running;
    if (slot.state === "failed" || this.closed) return Promise.resolve(undefined);
    if (slot.state === "crashed") slot.restarts += 1;
    slot.state = "starting";
    slot.checked.clear();
    slot.running = this.launch(slot);
    return slot.running;
  }

  private async launch(slot: Slot): Promise<LanguageServer | undefined> {
    const program = findProgram(slot.spec.command, this.options.root, this.options.env, this.options.isProjectTrusted);
    const spec =
      this.options.isProjectTrusted || !program ? slot.spec : specForUntrusted(slot.spec, program, this.options.root);
    if (typeof spec === "string") return void this.fail(slot, spec);
    if (!program) {
      this.fail(
        slot,
        `${spec.command} is not installed (looked on PATH${this.options.isProjectTrusted ? " and in node_modules/.bin" : ""})`,
      );
      return undefined;
    }
    try {
      const server = await LanguageServer.start({
        spec,
        program,
        root: this.options.root,
        env: this.options.env,
        startMs: this.waitOverride ?? COLD_WAIT_MS,
        onExit: (reason) => this.exited(slot, reason),
      });
      if (this.closed) {
        await server.stop(STOP_WAIT_MS);
        return undefined;
      }
      slot.server = server;
      slot.state = "running";
      return server;
    } catch (error) {
      this.fail(
        slot,
        `${spec.name} (${program}) did not start: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  private exited(slot: Slot, reason: string): void {
    if (this.closed || slot.state !== "running") return;
    slot.server = undefined;
    if (slot.restarts >= MAX_RESTARTS)
      return this.fail(slot, `${slot.spec.name} stopped again (${reason}); not restarted`);
    slot.state = "crashed";
    slot.problem = reason;
    this.options.warn(`lsp: ${slot.spec.name} stopped (${reason}); it will be started again on the next file`);
  }

  private fail(slot: Slot, problem: string): void {
    slot.state = "failed";
    slot.problem = problem;
    this.options.warn(`lsp: ${problem}`);
  }

  /** A problem short of failure (a wait that ran out): told once per server. */
  private problem(slot: Slot, problem: string): void {
    if (slot.problem === undefined) this.options.warn(`lsp: ${problem} (told once)`);
    slot.problem = problem;
  }
}

/** The promise's value, or undefined once `deadline` passes (it goes on, unheeded). */
function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}
