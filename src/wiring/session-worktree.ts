// `harness -w [name]`: a session in a git worktree of its own, on a new branch `harness/<name>`,
// in `<repo>.worktrees/<name>` beside the repository (worktree-git.ts says why there), with the
// ignored files `.worktreeinclude` names (Claude Code's file: `.env`, local config) copied in.
// The session then works there as in any folder: its sandbox, permissions, trust, AGENTS.md and
// undo snapshots are the worktree's (docs/worktrees.md).
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { newSessionId } from "../session/session-id.ts";
import {
  git,
  type Repository,
  repositoryOf,
  runGit,
  WORKTREE_BRANCH_PREFIX,
  WorktreeError,
  whyNotWorktreeName,
  worktreesFolder,
} from "./worktree-git.ts";

/** Most files `.worktreeinclude` may copy: more is a pattern that names a build folder, said so, not copied. */
const MAX_INCLUDED_FILES = 10_000;
/** The file in the worktree's own git folder that names the session working there (`harness worktrees` shows it). */
const SESSION_FILE = "harness-session";

/** A worktree made for a session. */
export interface SessionWorktree {
  name: string;
  branch: string;
  /** The worktree's top folder. */
  dir: string;
  /** Where the session starts: `dir`, or the same subfolder the command was typed in. */
  cwd: string;
  /** What the person should know (files copied, submodules, what was left out). */
  notices: string[];
}

/**
 * Makes the worktree for a session started in `cwd`: a new branch `harness/<name>` from the
 * current commit (a detached HEAD too), checked out in `<repo>.worktrees/<name>`. `name` absent
 * or empty: a new session-id-like name. Throws WorktreeError (the message says what to fix).
 */
export function createSessionWorktree(cwd: string, name?: string): SessionWorktree {
  const repository = repositoryOf(cwd);
  const chosen = name || newSessionId();
  const invalid = whyNotWorktreeName(chosen);
  if (invalid) throw new WorktreeError(invalid);
  const branch = `${WORKTREE_BRANCH_PREFIX}${chosen}`;
  const dir = path.join(worktreesFolder(repository), chosen);
  if (existsSync(dir))
    throw new WorktreeError(
      `${dir} already exists; continue its session there (harness -c --cwd ${dir}), or pick another name`,
    );
  if (runGit(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repository.root).status === 0)
    throw new WorktreeError(`branch ${branch} already exists; pick another name (harness worktrees lists them)`);
  if (runGit(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repository.root).status !== 0)
    throw new WorktreeError(`${repository.root} has no commit yet; commit once, then start a worktree from it`);
  mkdirSync(path.dirname(dir), { recursive: true });
  git(["worktree", "add", "--quiet", "-b", branch, dir, "HEAD"], repository.root);
  prepareGitFolder(dir);
  const notices = [
    ...copyIncluded(repository, dir),
    ...checkOutSubmodules(dir),
    ...(repository.subfolder && !existsSync(path.join(dir, repository.subfolder))
      ? [`${repository.subfolder} is not in the committed tree; starting at the worktree's top`]
      : []),
  ];
  const start = path.join(dir, repository.subfolder);
  return { name: chosen, branch, dir, cwd: existsSync(start) ? start : dir, notices };
}

/** What a client is told of the worktree its session works in (ACP's `_meta`, serve's summary). */
interface WorktreeNamed {
  name: string;
  branch: string;
  /** Where the session works. */
  path: string;
}

/**
 * A session a client asked for in a worktree of its own (an editor over ACP, a `harness serve`
 * client), made as `harness -w` makes one: the worktree of `cwd`'s repository (`name` "": a
 * generated name), the session opened there by `open`, recorded for `harness worktrees`.
 */
export async function openInWorktree<T extends { id: string }>(
  cwd: string,
  name: string,
  open: (cwd: string) => Promise<T>,
  warn: (message: string) => void,
): Promise<{ opened: T; worktree: WorktreeNamed }> {
  const made = createSessionWorktree(cwd, name);
  const opened = await open(made.cwd);
  recordWorktreeSession(made.dir, opened.id);
  for (const notice of made.notices) warn(notice);
  return { opened, worktree: { name: made.name, branch: made.branch, path: made.cwd } };
}

/** The worktree's own git folder (`<repo>/.git/worktrees/<id>`), from its `.git` file. */
function adminFolderOf(worktree: string): string | undefined {
  const outcome = runGit(["rev-parse", "--path-format=absolute", "--git-dir"], worktree);
  return outcome.status === 0 ? outcome.stdout.trim() : undefined;
}

/**
 * An empty `config.worktree` in the worktree's git folder: the sandbox keeps it read-only (git
 * reads it as config when `extensions.worktreeConfig` is on, and a `core.hooksPath` there would
 * run a planted hook), and a mount needs a file that exists.
 */
function prepareGitFolder(worktree: string): void {
  const admin = adminFolderOf(worktree);
  if (admin && !existsSync(path.join(admin, "config.worktree")))
    writeFileSync(path.join(admin, "config.worktree"), "", { flag: "wx" });
}

/** Writes down which session works in `worktree`, for `harness worktrees`. */
export function recordWorktreeSession(worktree: string, sessionId: string): void {
  const admin = adminFolderOf(worktree);
  if (admin) writeFileSync(path.join(admin, SESSION_FILE), `${sessionId}\n`);
}

/**
 * Copies the ignored files that `.worktreeinclude` (gitignore patterns, at the repository's top)
 * names from the checkout the command was typed in: Claude Code's rule, files both ignored and
 * listed, so a tracked file is never overwritten. Symlinks are copied as links.
 */
function copyIncluded(repository: Repository, dir: string): string[] {
  const list = path.join(repository.root, ".worktreeinclude");
  if (!lstatSync(list, { throwIfNoEntry: false })?.isFile()) return [];
  const files = (args: string[]) =>
    new Set(
      git(["ls-files", "-z", "--others", "--ignored", ...args], repository.root)
        .split("\0")
        .filter(Boolean),
    );
  const ignored = files(["--exclude-standard"]);
  const listed = [...files([`--exclude-from=${list}`])].filter((file) => ignored.has(file));
  if (listed.length > MAX_INCLUDED_FILES)
    return [
      `.worktreeinclude names ${listed.length} files, more than ${MAX_INCLUDED_FILES}: none copied (name files, not build folders)`,
    ];
  for (const file of listed) {
    const from = path.join(repository.root, file);
    const to = path.join(dir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    if (lstatSync(from).isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
  return listed.length > 0 ? [`copied ${listed.length} file(s) that .worktreeinclude names`] : [];
}

/**
 * Submodules are not checked out by `git worktree add`; `git submodule update --init` does it
 * from their recorded URLs. When that fails (no network, a URL git refuses), the worktree stays
 * and the notice says how to finish.
 */
function checkOutSubmodules(dir: string): string[] {
  if (!statSync(path.join(dir, ".gitmodules"), { throwIfNoEntry: false })?.isFile()) return [];
  const outcome = runGit(["submodule", "update", "--init", "--recursive", "--quiet"], dir);
  if (outcome.status === 0) return ["checked out the submodules"];
  const said = outcome.stderr.trim().split("\n").at(-1) ?? `exit ${outcome.status}`;
  return [`submodules not checked out (${said}); run git submodule update --init in ${dir}`];
}
