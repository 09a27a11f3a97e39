// The session worktrees of a repository (`harness worktrees`): their state, and merging or
// discarding one. Only worktrees on a `harness/` branch are harness's; others are never touched.
// A merge's conflicts are left to the person (git's own conflict markers, never resolved here);
// a worktree with uncommitted or unmerged work is removed only when the caller says so (`force`).
import { readdirSync, readFileSync, rmdirSync } from "node:fs";
import path from "node:path";
import { git, repositoryOf, runGit, WORKTREE_BRANCH_PREFIX, WorktreeError, worktreesFolder } from "./worktree-git.ts";

/** One session worktree and where it stands against the checkout the command was typed in. */
export interface WorktreeState {
  name: string;
  branch: string;
  dir: string;
  /** The folder is gone (deleted by hand): `discard` cleans up git's record and the branch. */
  isMissing: boolean;
  /** Its HEAD left the branch (`git checkout --detach` in it). */
  isDetached: boolean;
  /** Commits on the branch the checkout does not have, and the other way round. */
  ahead: number;
  behind: number;
  /** Changed, staged or untracked files in the worktree (ignored ones do not count). */
  dirtyFiles: number;
  sessionId?: string;
}

/** The session worktrees of the repository `cwd` is in, in git's order; throws WorktreeError outside a repository. */
export function listWorktrees(cwd: string): WorktreeState[] {
  const repository = repositoryOf(cwd);
  const records = git(["worktree", "list", "--porcelain"], repository.root).split("\n\n");
  const states: WorktreeState[] = [];
  for (const record of records) {
    const dir = /^worktree (.+)$/m.exec(record)?.[1];
    const ref = /^branch refs\/heads\/(.+)$/m.exec(record)?.[1];
    const inFolder = dir && path.dirname(dir) === worktreesFolder(repository);
    if (!dir || !(ref?.startsWith(WORKTREE_BRANCH_PREFIX) || inFolder)) continue;
    const branch = ref ?? `${WORKTREE_BRANCH_PREFIX}${path.basename(dir)}`;
    const isMissing = /^prunable/m.test(record);
    const [behind, ahead] = counts(repository.root, branch);
    states.push({
      name: branch.slice(WORKTREE_BRANCH_PREFIX.length),
      branch,
      dir,
      isMissing,
      isDetached: /^detached$/m.test(record),
      ahead,
      behind,
      dirtyFiles: isMissing ? 0 : git(["status", "--porcelain", "-z"], dir).split("\0").filter(Boolean).length,
      ...sessionOf(dir, repository.commonDir),
    });
  }
  return states;
}

/** The session worktree named `name`; throws WorktreeError naming the ones there are. */
export function findWorktree(cwd: string, name: string): WorktreeState {
  const all = listWorktrees(cwd);
  const found = all.find((state) => state.name === name);
  if (found) return found;
  const known = all.map((state) => state.name).join(", ");
  throw new WorktreeError(`no worktree ${name} in this repository${known ? ` (there are: ${known})` : ""}`);
}

/** What a merge did: merged, or stopped on conflicts (left in the checkout), or refused (git's reason). */
type MergeOutcome =
  | { kind: "merged"; summary: string }
  | { kind: "conflicts"; files: string[] }
  | { kind: "refused"; reason: string };

/**
 * Merges the worktree's branch into the checkout `cwd` is in (`git merge --no-ff`). Conflicts stay
 * as git leaves them, for the person to resolve and commit (or `git merge --abort`).
 */
export function mergeWorktree(cwd: string, state: WorktreeState): MergeOutcome {
  const root = repositoryOf(cwd).root;
  if (path.resolve(root) === path.resolve(state.dir))
    return { kind: "refused", reason: "run it from the checkout to merge into, not from the worktree itself" };
  if (state.ahead === 0) return { kind: "refused", reason: `${state.branch} has no commits this checkout lacks` };
  const message = `Merge ${state.branch}${state.sessionId ? ` (harness session ${state.sessionId})` : ""}`;
  const outcome = runGit(["merge", "--no-ff", "-m", message, state.branch], root);
  if (outcome.status === 0) return { kind: "merged", summary: git(["diff", "--stat", "HEAD^1", "HEAD"], root).trim() };
  const files = git(["diff", "--name-only", "--diff-filter=U"], root).split("\n").filter(Boolean);
  if (files.length > 0) return { kind: "conflicts", files };
  return { kind: "refused", reason: (outcome.stderr || outcome.stdout).trim().split("\n").slice(0, 4).join("; ") };
}

/** Why discarding would lose work (uncommitted files, commits merged nowhere), or undefined. */
export function workAtRisk(cwd: string, state: WorktreeState): string | undefined {
  const root = repositoryOf(cwd).root;
  const unmerged = runGit(["branch", "--no-merged", "HEAD", "--list", state.branch], root).stdout.trim();
  const why = [
    ...(state.dirtyFiles > 0 ? [`${state.dirtyFiles} uncommitted file(s)`] : []),
    ...(unmerged ? [`${state.ahead} commit(s) not merged into this checkout`] : []),
  ];
  return why.length > 0 ? why.join(" and ") : undefined;
}

/** Removes the worktree, its branch and git's record of it (and the repository's worktrees folder once empty). */
export function discardWorktree(cwd: string, state: WorktreeState): void {
  const repository = repositoryOf(cwd);
  // --force twice: the caller has judged the work at risk; this also removes one with submodules or a lock.
  if (!state.isMissing) git(["worktree", "remove", "--force", "--force", state.dir], repository.root);
  git(["worktree", "prune"], repository.root);
  if (runGit(["rev-parse", "--verify", "--quiet", `refs/heads/${state.branch}`], repository.root).status === 0)
    git(["branch", "-D", state.branch], repository.root);
  const folder = worktreesFolder(repository);
  try {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  } catch {
    // gone already, or not ours to remove
  }
}

/** [behind, ahead]: commits of HEAD not on the branch, and of the branch not in HEAD. */
function counts(root: string, branch: string): [number, number] {
  const outcome = runGit(["rev-list", "--left-right", "--count", `HEAD...refs/heads/${branch}`], root);
  const [left, right] = outcome.stdout.trim().split(/\s+/).map(Number);
  return outcome.status === 0 ? [left ?? 0, right ?? 0] : [0, 0];
}

/** The session that worked in `dir`, from its git folder's `harness-session` (session-worktree.ts). */
function sessionOf(dir: string, commonDir: string): { sessionId?: string } {
  const admin = runGit(["rev-parse", "--path-format=absolute", "--git-dir"], dir);
  const folder = admin.status === 0 ? admin.stdout.trim() : path.join(commonDir, "worktrees", path.basename(dir));
  try {
    const id = readFileSync(path.join(folder, "harness-session"), "utf8").trim();
    return /^[0-9a-z-]{1,64}$/.test(id) ? { sessionId: id } : {};
  } catch {
    return {};
  }
}
