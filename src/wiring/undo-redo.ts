// Undo and redo of whole turns: the workspace's files and the conversation go back together.
// Before a turn's first tool call that may change files (an edit, any command), the workspace is
// snapshotted (snapshots/) and the snapshot named in the session file; an undo restores the
// earliest snapshot among the turns it takes back and records an `undo` line, after which the
// session reader leaves those turns out of the conversation. The chat (/undo, /redo) and
// `harness undo` share everything here.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isPlaceholder } from "../sandbox/protected-entries.ts";
import type { SessionEntry } from "../session/session-entry.ts";
import type { SessionData } from "../session/session-reader.ts";
import { countOf } from "../shared/helpers.ts";
import { ShadowGitError } from "../snapshots/shadow-git.ts";
import { type FileChange, type RestoreResult, WorkspaceSnapshots } from "../snapshots/workspace-snapshots.ts";
import { stateDir } from "./defaults.ts";

/** What an undo says when none of its turns has a snapshot. */
export const CONVERSATION_ONLY =
  "the conversation only (no snapshot of the files was taken: no file-changing tool ran, or the snapshot failed)";

/** Files listed before an undo asks; the rest are counted. */
const MAX_LISTED_CHANGES = 40;

/** An undo or redo that cannot be done as asked; the message says why. `isUsage`: the request itself was wrong. */
export class UndoError extends Error {
  override name = "UndoError";

  constructor(
    message: string,
    readonly isUsage = false,
  ) {
    super(message);
  }
}

/** An undo or redo worked out, not yet done: what the person is shown and asked about. */
export interface UndoPlan {
  kind: "undo" | "redo";
  turns: number;
  /** The snapshot the files go back to; absent when none of the turns changed files (only the conversation moves). */
  target?: string;
  changes: FileChange[];
  /** Files the turns changed that someone else changed after them: left as they are. */
  leftAlone: string[];
  /** What the files went through, latest first; absent when the whole workspace goes back to `target`. */
  spans?: Span[];
}

/** What an undo or redo did to the files, and the files it left alone because they changed again since. */
export type UndoResult = RestoreResult & { leftAlone: string[] };

/**
 * Files went from `to` to `from` (a turn: from before it to its end; an undo: from before it to
 * after it). Going back puts `to` back in the paths that changed between them, and only where
 * nothing has changed since `from`: the rest of the workspace is someone else's work.
 */
interface Span {
  to: string;
  from: string;
}

/**
 * The snapshots of a session's workspace. The sandbox's placeholders (a `.mcp.json` made so that
 * commands cannot create one) are not the user's files: they are never snapshotted, so an undo
 * neither lists nor deletes them.
 */
export function snapshotsFor(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): WorkspaceSnapshots {
  return new WorkspaceSnapshots(stateDir(env), realpathSync(cwd), sessionId, isPlaceholder);
}

/**
 * Works out taking back the last `turns` turns of `session`: the files those turns changed go
 * back, unless changed again since. A turn with no record of its end (killed mid-way, or written
 * by an older harness) cannot be told from later changes: then the whole workspace goes back, as
 * the plan's list shows before it is done. Throws UndoError.
 */
export async function planUndo(session: SessionData, turns: number, snapshots: WorkspaceSnapshots): Promise<UndoPlan> {
  const available = session.turns.length;
  if (available === 0) throw new UndoError("nothing to undo: this session has no turns left to take back");
  if (turns > available) throw new UndoError(`this session has only ${countOf(available, "turn")} to undo`, true);
  const changing = session.turns.slice(-turns).filter((turn) => turn.snapshot);
  // The files before the earliest of these turns: the first snapshot among them (turns before it changed none).
  const earliest = changing[0]?.snapshot;
  if (!earliest) return { kind: "undo", turns, changes: [], leftAlone: [] };
  if (!changing.every((turn) => turn.after))
    return { kind: "undo", turns, target: earliest, changes: await changesTo(earliest, snapshots), leftAlone: [] };
  const spans = changing.reverse().map((turn) => ({ to: turn.snapshot as string, from: turn.after as string }));
  return { kind: "undo", turns, spans, ...(await selectiveTarget(spans, snapshots)) };
}

/** Works out reversing the latest undo, in the files it changed and nobody changed since. Throws UndoError. */
export async function planRedo(session: SessionData, snapshots: WorkspaceSnapshots): Promise<UndoPlan> {
  if (!session.redo) throw new UndoError("nothing to redo: no undo since the last turn");
  const { turns, saved, restored } = session.redo;
  if (!saved) return { kind: "redo", turns, changes: [], leftAlone: [] };
  if (!restored)
    return { kind: "redo", turns, target: saved, changes: await changesTo(saved, snapshots), leftAlone: [] };
  const spans = [{ to: saved, from: restored }];
  return { kind: "redo", turns, spans, ...(await selectiveTarget(spans, snapshots)) };
}

/** The workspace as it is now with the spans' paths put back, where nobody changed them since. */
async function selectiveTarget(
  spans: Span[],
  snapshots: WorkspaceSnapshots,
): Promise<{ target: string; changes: FileChange[]; leftAlone: string[] }> {
  return wrapGit(async () => {
    for (const span of spans) await snapshots.exists(span.to);
    const now = await snapshots.take();
    const claimed = new Set<string>();
    const leftAlone = new Set<string>();
    const sources: Array<{ snapshot: string; paths: string[] }> = [];
    for (const span of spans) {
      const changed = await snapshots.changedPaths(span.to, span.from);
      const changedSince = new Set(await snapshots.changedPaths(span.from, now));
      // A path is judged by the latest span that changed it: was it changed again after that?
      for (const path of changed.filter((path) => !claimed.has(path))) {
        claimed.add(path);
        if (changedSince.has(path)) leftAlone.add(path);
      }
      sources.push({ snapshot: span.to, paths: changed });
    }
    // Latest first, so the earliest span's state of a path is the one written last: it wins.
    const kept = sources.map((source) => ({ ...source, paths: source.paths.filter((path) => !leftAlone.has(path)) }));
    const target = await snapshots.compose(now, kept);
    return { target, changes: await snapshots.changesTo(target), leftAlone: [...leftAlone].sort() };
  });
}

/**
 * Does a planned undo or redo: the files first, then the line that records it (the conversation
 * follows from that line). A selective plan is worked out again first: files may have changed
 * while the person read it.
 */
export async function applyPlan(
  plan: UndoPlan,
  snapshots: WorkspaceSnapshots,
  record: (entry: Extract<SessionEntry, { type: "undo" | "redo" }>) => void,
): Promise<UndoResult | undefined> {
  const fresh = plan.spans ? await selectiveTarget(plan.spans, snapshots) : plan;
  const target = fresh.target;
  const result = target ? await wrapGit(() => snapshots.restore(target)) : undefined;
  const at = new Date().toISOString();
  record(
    plan.kind === "undo"
      ? { type: "undo", at, turns: plan.turns, ...(target && result ? { restored: target, saved: result.saved } : {}) }
      : { type: "redo", at },
  );
  return result && { ...result, leftAlone: fresh.leftAlone };
}

/** What an undo or redo does, for people: the turns, then one line per file. */
export function describePlan(plan: UndoPlan): string {
  const turns = plan.turns === 1 ? "the last turn" : `the last ${plan.turns} turns`;
  const head =
    plan.kind === "undo"
      ? `undo ${turns}`
      : `redo ${plan.turns === 1 ? "the undone turn" : `the ${plan.turns} undone turns`}`;
  if (!plan.target) return `${head}: ${CONVERSATION_ONLY}`;
  const leftAlone = plan.leftAlone.length > 0 ? `\n${describeLeftAlone(plan.leftAlone)}` : "";
  if (plan.changes.length === 0) return `${head}: no file differs from then; the conversation goes back${leftAlone}`;
  return `${head}; files that will change:\n${listChanges(plan.changes)}${leftAlone}`;
}

/** The files an undo did not touch because someone changed them after the turn, named. */
export function describeLeftAlone(paths: string[]): string {
  const listed = paths.slice(0, MAX_LISTED_CHANGES).map((path) => `  ${path}`);
  if (paths.length > MAX_LISTED_CHANGES) listed.push(`  … and ${paths.length - MAX_LISTED_CHANGES} more`);
  return `left as they are (changed again after the turn, by you or another program):\n${listed.join("\n")}`;
}

/** `  changed   a.txt` lines, at most MAX_LISTED_CHANGES of them. */
export function listChanges(changes: FileChange[]): string {
  const lines = changes.slice(0, MAX_LISTED_CHANGES).map((c) => `  ${c.change.padEnd(8)}  ${c.path}`);
  if (changes.length > MAX_LISTED_CHANGES) lines.push(`  … and ${changes.length - MAX_LISTED_CHANGES} more`);
  return lines.join("\n");
}

async function changesTo(target: string | undefined, snapshots: WorkspaceSnapshots): Promise<FileChange[]> {
  if (!target) return [];
  return wrapGit(async () => {
    await snapshots.exists(target);
    return snapshots.changesTo(target);
  });
}

async function wrapGit<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ShadowGitError) throw new UndoError(`cannot restore the files: ${error.message}`);
    throw error;
  }
}

/**
 * Takes the snapshot before a turn's first tool call that may change files: once per turn, and
 * every such call waits for it. A failure (no git, a workspace too large) is told once per
 * session and never stops the turn: that turn's files just cannot be undone.
 */
export class TurnSnapshots {
  private pending: Promise<void> | undefined;
  private hasWarned = false;
  private hasPruned = false;
  private hasWarmed = false;
  /** WorkspaceSnapshots.warm of the first turn (never rejects), and the snapshots it warms. */
  private warming: Promise<void> | undefined;
  private warmed: WorkspaceSnapshots | undefined;

  constructor(private readonly options: { env: NodeJS.ProcessEnv; cwd: string; warn(message: string): void }) {}

  /**
   * A turn begins: its first change needs a snapshot again. On the session's first turn the
   * snapshot's work starts now, beside the model's first request (which changes no file):
   * WorkspaceSnapshots.warm, so the snapshot itself, taken at the first change as before, costs
   * one `git ls-files` on that change's path when nothing changed meanwhile (issue 52). Later
   * turns need no warming: the last turn's after-turn snapshot left the tree known.
   */
  newTurn(sessionId: string): void {
    this.pending = undefined;
    if (this.hasWarmed) return;
    this.hasWarmed = true;
    if (this.whyNot() === undefined) {
      this.warmed = this.snapshotsOf(sessionId);
      this.warming = this.warmed.warm();
    }
  }

  /** Resolves once this turn's snapshot is taken and recorded (or has failed). */
  beforeChange(sessionId: string, record: (commit: string) => void): Promise<void> {
    this.pending ??= this.take(sessionId, record);
    return this.pending;
  }

  /**
   * The turn ended: when it took a snapshot before changing files, another one now, so an undo
   * can tell what the turn changed from what someone changes after it. Never throws: without it
   * an undo of this turn puts the whole workspace back, as it did before this existed.
   *
   * Decision (issue 52): a one-shot still waits for it before exiting, after its answer is out.
   * It has to show the files as the turn left them: deferred to the next session's start it
   * would count whatever the user did in between as the turn's work, and undo would take that
   * back too; finished by a detached process it would race the next `harness -c` or `harness
   * undo` writing the same session file. So it stays, made short instead: one `git ls-files`
   * when the turn's last command changed nothing since the snapshot before it, three
   * processes otherwise (it was five).
   */
  async afterTurn(sessionId: string, record: (commit: string) => void): Promise<void> {
    // A turn that changed no file ends the warming it began (its listing stopped, its writing
    // awaited): a one-shot that exits while git writes under $HARNESS_HOME would leave it writing
    // there after the exit, and a listing stuck on a FIFO would hold the exit for 120 s.
    if (this.warming) await this.warmed?.stopWarming();
    if (!this.pending || !(await this.pending.then(() => this.tookSnapshot))) return;
    this.pending = undefined;
    try {
      record(await this.snapshotsOf(sessionId).take());
    } catch {
      // told once already if snapshots fail here; the undo falls back as said above
    }
  }

  private tookSnapshot = false;
  /** The same object for the turn's snapshots before and after: it remembers its last tree (WorkspaceSnapshots.writeTree). */
  private snapshots: { sessionId: string; snapshots: WorkspaceSnapshots } | undefined;

  private snapshotsOf(sessionId: string): WorkspaceSnapshots {
    if (this.snapshots?.sessionId !== sessionId)
      this.snapshots = { sessionId, snapshots: snapshotsFor(this.options.env, this.options.cwd, sessionId) };
    return this.snapshots.snapshots;
  }

  /** Why no snapshot is taken: "off", or what is wrong with the workspace; undefined when one is. */
  private whyNot(): string | undefined {
    // Batch tasks run in fresh copies no one undoes: `harness batch` turns snapshots off for its
    // tasks (HARNESS_SNAPSHOTS=off) unless given --snapshots.
    if (this.options.env.HARNESS_SNAPSHOTS === "off") return "off";
    try {
      // A home folder or the root is no project: walking it would hold the first command for minutes.
      const workspace = realpathSync(this.options.cwd);
      if (workspace === "/" || workspace === realpathSync(this.options.env.HOME || homedir()))
        return "the workspace is your home folder (or /), too large to snapshot; start harness in a project folder";
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return undefined;
  }

  private async take(sessionId: string, record: (commit: string) => void): Promise<void> {
    this.tookSnapshot = false;
    const whyNot = this.whyNot();
    if (whyNot === "off") return;
    try {
      if (whyNot !== undefined) throw new Error(whyNot);
      const snapshots = this.snapshotsOf(sessionId);
      record(await snapshots.take());
      this.tookSnapshot = true;
      if (!this.hasPruned) {
        this.hasPruned = true;
        snapshots.prune().catch(() => {}); // housekeeping: it runs again next session
      }
    } catch (error) {
      if (this.hasWarned) return;
      this.hasWarned = true;
      this.options.warn(
        `warning: no snapshot of the workspace before this turn, so its file changes cannot be undone: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
