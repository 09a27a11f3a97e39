// Each attempt of a task runs in a working copy of its own: a fresh clone of its repository at
// its ref, a fresh empty folder, or the `cwd` it names (used as it is: tasks that share a cwd
// share files). What the attempt changed is its diff against where the copy started.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { makePrivateFolder, PRIVATE_FOLDER_MODE } from "../shared/private-files.ts";
import { systemProgram } from "../shared/system-program.ts";
import { type BatchTask, folderNameOf, localRepoPath } from "./batch-task.ts";

/** A clone or checkout taking longer than this fails the task (it is local: no network). */
const GIT_TIMEOUT_MS = 10 * 60_000;
/** The longest diff a result carries; a longer one is cut, and says so. */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;
/** Git's empty tree: what an empty folder's diff is taken against. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** Copies of one task in one run: more than this many attempts is a bug, not a retry. */
const MAX_COPIES = 100;

/** The working copy could not be made; the message says what git or the file system said. */
export class WorkingCopyError extends Error {
  override name = "WorkingCopyError";
}

/**
 * A folder a task names (its `cwd`, a local `repo`): its real path, or why no task runs there.
 * The CLI hands in the one judgement of workspaces (wiring/home-workspace.ts: not a credential
 * folder, the state folder, a hidden folder of home, nor one that holds home), which this layer
 * may not import.
 */
export type TaskFolderCheck = (folder: string) => { folder: string } | { refused: string };

/** Where an attempt runs, and what its diff is taken against (absent: no diff, a `cwd` task). */
export interface WorkingCopy {
  dir: string;
  base?: { gitDir: string; commit: string };
}

/**
 * Makes the attempt's working copy and returns it. The folder is `<workRoot>/<run>/<task>`, or
 * `<task>.2`, `<task>.3`, ... when an earlier attempt's folder is there: each attempt claims a
 * folder no one else has (mkdir fails if it exists), so a retry never starts in what an earlier,
 * perhaps still running, attempt edited, and no attempt deletes another's files. Old copies
 * stay for inspection. A repository is cloned with a plain `git clone` (for a local path git
 * hard-links the objects: fast, no network), then `ref` is checked out detached. Not `--shared`:
 * its objects stay in the source repository, which the task's sandbox does not show, so git in
 * `setup`, `test` or the agent's own commands failed there ("unable to normalize alternate object
 * path"). The copy stands alone. A clone rather than `git worktree add`
 * leaves nothing in the source repository and lets many tasks clone the same one at once.
 */
export async function prepareWorkingCopy(
  task: BatchTask,
  where: { workRoot: string; runId: string; taskFolder: TaskFolderCheck },
  signal: AbortSignal,
): Promise<WorkingCopy> {
  const checked = (what: string, folder: string) => {
    const verdict = where.taskFolder(folder);
    if ("refused" in verdict) throw new WorkingCopyError(`${what} ${verdict.refused}: no task runs there`);
    return verdict.folder;
  };
  if (task.cwd) {
    const cwd = checked("cwd", task.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new WorkingCopyError(`cwd ${task.cwd} is not a folder`);
    return { dir: cwd };
  }
  const localRepo = task.repo === undefined ? undefined : localRepoPath(task.repo);
  const repo = localRepo === undefined ? task.repo : checked("repo", localRepo);
  if (localRepo !== undefined && repo) await checkObjectSources(repo, checked, signal);
  const dir = claimFolder(join(where.workRoot, where.runId), folderNameOf(task.id));
  if (!repo) return { dir, base: { gitDir: `${dir}.base.git`, commit: EMPTY_TREE } };
  await git(["clone", "--quiet", ...(task.ref ? ["--no-checkout"] : []), "--", repo, dir], dir, signal);
  if (task.ref) {
    const commit = (await revParse(task.ref, dir, signal)) ?? (await revParse(`origin/${task.ref}`, dir, signal));
    if (!commit) throw new WorkingCopyError(`ref "${task.ref}" not found in ${task.repo}`);
    await git(["checkout", "--quiet", "--detach", commit], dir, signal);
  }
  const head = await revParse("HEAD", dir, signal);
  return { dir, ...(head ? { base: { gitDir: join(dir, ".git"), commit: head } } : {}) };
}

/**
 * Checks where a local repository's objects really come from, as its own folder was: a `.git`
 * file (`gitdir: ~/.password-store/.git`) or a `commondir` makes git read another repository,
 * and `objects/info/alternates` adds another's objects, which a clone copies. Each is judged by
 * the folder that holds it (the part of the path before `.git`), so a repository planted in an
 * allowed folder cannot hand out one that is not.
 */
async function checkObjectSources(
  repo: string,
  checked: (what: string, folder: string) => string,
  signal: AbortSignal,
): Promise<void> {
  const dirs = (await git(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"], repo, signal))
    .split("\n")
    .filter(Boolean);
  for (const dir of dirs) checked(`repo ${repo} takes its objects from`, holderOf(dir));
  // Alternates chain (git follows 5 levels): each level's folders are judged before reading on.
  let level = [join(dirs.at(-1) ?? repo, "objects")];
  for (let depth = 0; depth <= MAX_ALTERNATES_DEPTH && level.length > 0; depth++) {
    level = level.flatMap(alternatesOf);
    for (const dir of level) checked(`repo ${repo} takes its objects from`, holderOf(dir));
  }
}

/** How deep git follows alternates of alternates. */
const MAX_ALTERNATES_DEPTH = 5;

/** The object folders an objects folder borrows from (its info/alternates), as absolute paths. */
function alternatesOf(objects: string): string[] {
  const file = join(objects, "info", "alternates");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => {
      // git unquotes a C-quoted line: judged as written, it would be another folder than git reads.
      if (line.trim().startsWith('"')) throw new WorkingCopyError(`${file} has a quoted line; not cloned`);
      return resolve(objects, line.trim());
    });
}

/** The folder a git folder belongs to: the path before its first `.git` part (a bare repository is its own). */
function holderOf(gitDir: string): string {
  const parts = gitDir.split(sep);
  const at = parts.indexOf(".git");
  return at <= 0 ? gitDir : parts.slice(0, at).join(sep) || sep;
}

function claimFolder(parent: string, name: string): string {
  makePrivateFolder(parent);
  for (let n = 1; n <= MAX_COPIES; n++) {
    const dir = join(parent, n === 1 ? name : `${name}.${n}`);
    try {
      mkdirSync(dir, { mode: PRIVATE_FOLDER_MODE });
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new WorkingCopyError((error as Error).message);
    }
  }
  throw new WorkingCopyError(`${MAX_COPIES} working copies of this task already exist in ${parent}`);
}

/**
 * What the attempt changed: every file added, changed or removed against the copy's start,
 * as a patch `git apply` takes (binary files included). Git's own index is not touched: the
 * files are staged into a throwaway index. `.mcp.json` holding only the sandbox's placeholder
 * (`{}`) is left out: the sandbox made it, not the task.
 */
export async function diffOf(copy: WorkingCopy, signal: AbortSignal): Promise<string | null> {
  if (!copy.base) return null;
  const { gitDir, commit } = copy.base;
  const index = `${copy.dir}.diff-index`;
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: copy.dir, GIT_INDEX_FILE: index };
  try {
    if (!existsSync(gitDir)) await git(["init", "--quiet", "--bare", gitDir], copy.dir, signal, {});
    const placeholder = join(copy.dir, ".mcp.json");
    const skip =
      existsSync(placeholder) && readFileSync(placeholder, "utf8") === "{}\n" ? [":(exclude,top).mcp.json"] : [];
    await git(["add", "--all", "--force", "--", ".", ...skip], copy.dir, signal, env);
    const diff = await git(
      ["diff", "--cached", "--binary", "--no-color", commit, "--", ".", ...skip],
      copy.dir,
      signal,
      env,
    );
    return diff.length > MAX_DIFF_BYTES
      ? `${diff.slice(0, MAX_DIFF_BYTES)}\n[diff cut at ${MAX_DIFF_BYTES} bytes of ${diff.length}]\n`
      : diff;
  } catch {
    return null; // no diff is better than a wrong one
  }
}

async function revParse(ref: string, cwd: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    return (
      (await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], cwd, signal)).trim() ||
      undefined
    );
  } catch {
    return undefined;
  }
}

function git(args: string[], cwd: string, signal: AbortSignal, extraEnv: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      systemProgram("git"),
      // No hooks or fsmonitor from the copy's own config: git here runs outside any sandbox.
      ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never", ...args],
      {
        cwd,
        signal,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 4 * MAX_DIFF_BYTES,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...extraEnv },
      },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new WorkingCopyError(
              `git ${args[0]} failed: ${(stderr || error.message).trim().split("\n").slice(-3).join(" ")}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}
