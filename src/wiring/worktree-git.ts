// Git as harness's worktrees use it (`harness -w`, `harness worktrees`): the one runner, the
// repository a folder belongs to, and where its session worktrees live. See docs/worktrees.md.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { systemProgram } from "../shared/system-program.ts";

/** Bound on one git command (a checkout of a large tree, a merge); git answers most in milliseconds. */
const GIT_TIMEOUT_MS = 5 * 60_000;
/** Most output read from one git command (a list of ignored files, a diff summary). */
const MAX_GIT_OUTPUT_BYTES = 64 * 1024 * 1024;
/** The branch folder of harness's worktrees: `harness/<name>` (the sandbox lets a worktree write only these refs). */
export const WORKTREE_BRANCH_PREFIX = "harness/";

/** Git refused, or is missing; the message is git's own (its last lines), with what was asked. */
export class WorktreeError extends Error {
  override name = "WorktreeError";
}

/** What one git command said: its exit status and outputs (never thrown for a non-zero exit). */
interface GitOutcome {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs git in `cwd`; a non-zero exit is returned, not thrown (a merge with conflicts exits 1). */
export function runGit(args: string[], cwd: string): GitOutcome {
  try {
    const stdout = execFileSync(systemProgram("git"), args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: MAX_GIT_OUTPUT_BYTES,
    });
    return { status: 0, stdout, stderr: "" };
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { status?: number | null; stdout?: string; stderr?: string };
    if (typeof failed.status !== "number")
      throw new WorktreeError(`git ${args[0]} could not run: ${failed.code ?? failed.message}`);
    return { status: failed.status, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Runs git and returns its output; throws WorktreeError with git's message when it fails. */
export function git(args: string[], cwd: string): string {
  const outcome = runGit(args, cwd);
  if (outcome.status !== 0) {
    const said = outcome.stderr.trim().split("\n").slice(-3).join("; ") || `exit ${outcome.status}`;
    throw new WorktreeError(`git ${args.join(" ")}: ${said}`);
  }
  return outcome.stdout;
}

/** The repository a folder is in, as harness's worktrees need it. */
export interface Repository {
  /** The main checkout's top folder (the one `git worktree list` names first). */
  mainRoot: string;
  /** The folder shared by all its worktrees (`.git` of the main checkout). */
  commonDir: string;
  /** The top folder of the checkout `cwd` is in (the main one, or a linked worktree). */
  root: string;
  /** Where `cwd` is inside `root` (`""` at the top): a session in `-w` starts at the same place. */
  subfolder: string;
}

/** The repository of `cwd`; throws WorktreeError when it is not in one, or it is bare. */
export function repositoryOf(cwd: string): Repository {
  const outcome = runGit(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], cwd);
  if (outcome.status !== 0)
    throw new WorktreeError(`${cwd} is not in a git repository (a worktree is a second checkout of one)`);
  const [root, commonDir] = outcome.stdout.trim().split("\n");
  if (!root || !commonDir) throw new WorktreeError(`${cwd} is in a bare repository or a .git folder: no checkout`);
  // The main checkout holds the common folder as its `.git` (git's layout for a non-bare repository).
  const mainRoot = path.basename(commonDir) === ".git" ? path.dirname(commonDir) : root;
  return { mainRoot, commonDir, root, subfolder: path.relative(root, cwd) };
}

/**
 * Where a repository's session worktrees live: `<parent>/<repo>.worktrees/`, beside the main
 * checkout. *Decision*: not under $HARNESS_HOME (docs/worktrees.md says why: the state folder is
 * hidden from commands and is never a workspace) nor a hidden folder of home (a workspace there
 * needs --allow-home); beside the repository, the user finds it with `ls ..`.
 */
export function worktreesFolder(repository: Repository): string {
  return path.join(path.dirname(repository.mainRoot), `${path.basename(repository.mainRoot)}.worktrees`);
}

/** A worktree name is one plain path segment and a valid branch name's last part. */
const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot name a worktree (and its branch `harness/<name>`), or undefined when it can. */
export function whyNotWorktreeName(name: string): string | undefined {
  if (!WORKTREE_NAME.test(name) || name.endsWith(".lock") || name.includes(".."))
    return `"${name}" cannot name a worktree: use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit`;
  return undefined;
}
