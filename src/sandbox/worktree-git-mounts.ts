// What a sandboxed command in a session worktree (`harness -w`, docs/worktrees.md) may write of
// the main repository, so that `git add` and `git commit` work there: the worktree's own git
// folder (`<repo>/.git/worktrees/<id>`: its HEAD, index, logs), the object store, and the refs
// and reflogs of harness's branch folder (`refs/heads/harness/`). Nothing else of the main
// repository: its config, hooks, other branches, packed-refs and the other worktrees' folders
// stay read-only, and in the worktree's own folder the files that point git elsewhere
// (`commondir`, `gitdir`) or are read as config (`config.worktree`) are read-only too.
//
// Judged once, when the session starts, from the worktree's `.git` file and HEAD: a command that
// later points HEAD at `main` gains nothing (the refs of `main` stay read-only). A linked worktree
// that is not on a `harness/` branch (one the user made) gets none of this: its git metadata stays
// read-only, as before.
import { lstatSync, readFileSync, type Stats } from "node:fs";
import path from "node:path";

/** The branch folder harness's worktrees work on (wiring/worktree-git.ts names branches in it). */
const HARNESS_BRANCHES = "refs/heads/harness";
/** Most of a `.git` file or HEAD that is read: one line each. */
const MAX_POINTER_BYTES = 4096;
/** Files in the worktree's git folder that redirect git or are read as its config. */
const READ_ONLY_PARTS = ["commondir", "gitdir", "config.worktree"];

/** The main repository's git folder (shown read-only: it may be in the private /tmp), paths to bind writable in it, then paths to bind read-only over those (all exist). */
export interface WorktreeGitMounts {
  commonDir: string;
  writable: string[];
  readOnly: string[];
}

/** The mounts for `workspace` when it is in a harness session worktree; undefined otherwise. */
export function worktreeGitMounts(workspace: string): WorktreeGitMounts | undefined {
  let top = workspace;
  while (!entryOf(path.join(top, ".git")) && path.dirname(top) !== top) top = path.dirname(top);
  return mountsFor(top);
}

function mountsFor(workspace: string): WorktreeGitMounts | undefined {
  const gitFile = readSmall(path.join(workspace, ".git"));
  const gitDir = gitFile && /^gitdir:\s*(.+)$/m.exec(gitFile)?.[1]?.trim();
  if (!gitDir) return undefined;
  const admin = path.resolve(workspace, gitDir);
  // Git's own back-pointer: the admin folder names this very worktree, as `git worktree add` made it.
  if (readSmall(path.join(admin, "gitdir"))?.trim() !== path.join(workspace, ".git")) return undefined;
  const common = readSmall(path.join(admin, "commondir"))?.trim();
  const head = readSmall(path.join(admin, "HEAD"));
  if (!common || !head?.startsWith(`ref: ${HARNESS_BRANCHES}/`)) return undefined;
  const commonDir = path.resolve(admin, common);
  // The admin folder must be the common folder's own worktrees/<id>, as git makes it.
  if (path.dirname(admin) !== path.join(commonDir, "worktrees")) return undefined;
  const writable = [admin, path.join(commonDir, "objects"), path.join(commonDir, HARNESS_BRANCHES)];
  const reflogs = path.join(commonDir, "logs", HARNESS_BRANCHES);
  if (isFolder(reflogs)) writable.push(reflogs);
  if (!writable.every(isFolder)) return undefined;
  const readOnly = READ_ONLY_PARTS.map((part) => path.join(admin, part)).filter((file) => entryOf(file)?.isFile());
  return { commonDir, writable, readOnly };
}

/** The bwrap arguments for the mounts: after the workspace's bind, before the protected entries. */
export function worktreeGitArgs(mounts: WorktreeGitMounts | undefined): string[] {
  if (!mounts) return [];
  return [
    "--ro-bind",
    mounts.commonDir,
    mounts.commonDir,
    ...mounts.writable.flatMap((folder) => ["--bind", folder, folder]),
    ...mounts.readOnly.flatMap((file) => ["--ro-bind", file, file]),
  ];
}

function isFolder(entry: string): boolean {
  return entryOf(entry)?.isDirectory() === true;
}

/**
 * An entry's lstat, or undefined when it is missing or cannot be looked at: a folder above the
 * workspace this user may not enter (EACCES: a test's root-owned /tmp folder run as nobody) holds
 * no worktree of theirs.
 */
function entryOf(entry: string): Stats | undefined {
  try {
    return lstatSync(entry, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function readSmall(file: string): string | undefined {
  const stats = entryOf(file);
  if (!stats?.isFile() || stats.size > MAX_POINTER_BYTES) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
