// What a worktree's session or subagent changed, as a branch: its uncommitted work committed on its
// branch (so merging the branch takes all of it), and the size of the change against where it
// started. Used by best of N (cli/best-of-n.ts) and subagents in worktrees (subagent-worktree.ts).
import { git, runGit } from "./worktree-git.ts";

/**
 * Git run by harness itself, outside the sandbox, in a worktree an agent worked in: no hooks
 * (`core.hooksPath=/dev/null`, with `--no-verify`) and no fsmonitor command, so nothing the agent
 * planted runs here; a fixed author, since the machine may have none configured.
 */
const UNHOOKED = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "user.name=harness",
  "-c",
  "user.email=harness@localhost",
];

/** Lines added and removed, and files touched (git diff --numstat). */
export interface DiffSize {
  files: number;
  added: number;
  removed: number;
}

/** Commits what is uncommitted in `dir` on its branch, with `message`; false when there was nothing. */
export function commitLeftovers(dir: string, message: string): boolean {
  if (git([...UNHOOKED, "status", "--porcelain"], dir).trim() === "") return false;
  git([...UNHOOKED, "add", "-A"], dir);
  return runGit([...UNHOOKED, "commit", "--no-verify", "-q", "-m", message], dir).status === 0;
}

/** The size of the change from `start` to the worktree's HEAD. */
export function diffSince(dir: string, start: string): DiffSize {
  const lines = git([...UNHOOKED, "diff", "--numstat", start, "HEAD"], dir)
    .trim()
    .split("\n")
    .filter(Boolean);
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    const [plus, minus] = line.split("\t");
    added += Number(plus) || 0;
    removed += Number(minus) || 0;
  }
  return { files: lines.length, added, removed };
}

/** `2 files +14 -3`. */
export function describeDiff(diff: DiffSize): string {
  return `${diff.files} file${diff.files === 1 ? "" : "s"} +${diff.added} -${diff.removed}`;
}
