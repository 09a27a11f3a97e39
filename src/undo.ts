// Undo and redo of whole turns: the workspace's files and the conversation go back together.
// Before a turn's first tool call that may change files (an edit, any command), the workspace is
// snapshotted (snapshots/) and the snapshot named in the session file; an undo restores the
// earliest snapshot among the turns it takes back and records an `undo` line, after which the
// session reader leaves those turns out of the conversation. The chat (/undo, /redo) and
// `harness undo` share everything here.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { stateDir } from "./config.ts";
import { isPlaceholder } from "./sandbox/protected-entries.ts";
import type { SessionEntry } from "./session/session-entry.ts";
import type { SessionData } from "./session/session-reader.ts";
import { ShadowGitError } from "./snapshots/shadow-git.ts";
import { WorkspaceSnapshots, type FileChange, type RestoreResult } from "./snapshots/workspace-snapshots.ts";
import { countOf } from "./core/helpers.ts";

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
}

/**
 * The snapshots of a session's workspace. The sandbox's placeholders (a `.mcp.json` made so that
 * commands cannot create one) are not the user's files: they are never snapshotted, so an undo
 * neither lists nor deletes them.
 */
export function snapshotsFor(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): WorkspaceSnapshots {
  return new WorkspaceSnapshots(stateDir(env), realpathSync(cwd), sessionId, isPlaceholder);
}

/** Works out taking back the last `turns` turns of `session`. Throws UndoError. */
export async function planUndo(session: SessionData, turns: number, snapshots: WorkspaceSnapshots): Promise<UndoPlan> {
  const available = session.turns.length;
  if (available === 0) throw new UndoError("nothing to undo: this session has no turns left to take back");
  if (turns > available) throw new UndoError(`this session has only ${countOf(available, "turn")} to undo`, true);
  // The files before the earliest of these turns: the first snapshot among them (turns before it changed none).
  const target = session.turns.slice(-turns).find((turn) => turn.snapshot)?.snapshot;
  return { kind: "undo", turns, target, changes: await changesTo(target, snapshots) };
}

/** Works out reversing the latest undo. Throws UndoError. */
export async function planRedo(session: SessionData, snapshots: WorkspaceSnapshots): Promise<UndoPlan> {
  if (!session.redo) throw new UndoError("nothing to redo: no undo since the last turn");
  return {
    kind: "redo",
    turns: session.redo.turns,
    target: session.redo.saved,
    changes: await changesTo(session.redo.saved, snapshots),
  };
}

/** Does a planned undo or redo: the files first, then the line that records it (the conversation follows from that line). */
export async function applyPlan(
  plan: UndoPlan,
  snapshots: WorkspaceSnapshots,
  record: (entry: Extract<SessionEntry, { type: "undo" | "redo" }>) => void,
): Promise<RestoreResult | undefined> {
  const result = plan.target ? await wrapGit(() => snapshots.restore(plan.target as string)) : undefined;
  const at = new Date().toISOString();
  record(
    plan.kind === "undo"
      ? {
          type: "undo",
          at,
          turns: plan.turns,
          ...(plan.target && result ? { restored: plan.target, saved: result.saved } : {}),
        }
      : { type: "redo", at },
  );
  return result;
}

/** What an undo or redo does, for people: the turns, then one line per file. */
export function describePlan(plan: UndoPlan): string {
  const turns = plan.turns === 1 ? "the last turn" : `the last ${plan.turns} turns`;
  const head =
    plan.kind === "undo"
      ? `undo ${turns}`
      : `redo ${plan.turns === 1 ? "the undone turn" : `the ${plan.turns} undone turns`}`;
  if (!plan.target) return `${head}: ${CONVERSATION_ONLY}`;
  if (plan.changes.length === 0) return `${head}: no file differs from then; the conversation goes back`;
  return `${head}; files that will change:\n${listChanges(plan.changes)}`;
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

  constructor(private readonly options: { env: NodeJS.ProcessEnv; cwd: string; warn(message: string): void }) {}

  /** A turn begins: its first change needs a snapshot again. */
  newTurn(): void {
    this.pending = undefined;
  }

  /** Resolves once this turn's snapshot is taken and recorded (or has failed). */
  beforeChange(sessionId: string, record: (commit: string) => void): Promise<void> {
    this.pending ??= this.take(sessionId, record);
    return this.pending;
  }

  private async take(sessionId: string, record: (commit: string) => void): Promise<void> {
    // Batch tasks run in fresh copies no one undoes: `harness batch` turns snapshots off for its
    // tasks (HARNESS_SNAPSHOTS=off) unless given --snapshots.
    if (this.options.env.HARNESS_SNAPSHOTS === "off") return;
    try {
      // A home folder or the root is no project: walking it would hold the first command for minutes.
      const workspace = realpathSync(this.options.cwd);
      if (workspace === "/" || workspace === realpathSync(this.options.env.HOME || homedir()))
        throw new Error(
          "the workspace is your home folder (or /), too large to snapshot; start harness in a project folder",
        );
      const snapshots = snapshotsFor(this.options.env, this.options.cwd, sessionId);
      record(await snapshots.take());
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
