// Each task runs in a working copy of its own: a fresh clone of its repository at its ref, a
// fresh empty folder, or the `cwd` it names (used as it is: tasks that share a cwd share files).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { folderNameOf, type BatchTask } from "./batch-task.ts";

/** A clone or checkout taking longer than this fails the task (it is local: no network). */
const GIT_TIMEOUT_MS = 10 * 60_000;

/** The working copy could not be made; the message says what git or the file system said. */
export class WorkingCopyError extends Error {
  override name = "WorkingCopyError";
}

/**
 * Makes the task's working copy under `workRoot` and returns its path. A repository is cloned
 * with `git clone --shared` (objects are borrowed from the source, so it is fast and uses no
 * network for a local path; the source must stay where it is while the batch runs), then `ref`
 * is checked out detached. A clone rather than `git worktree add` leaves nothing in the source
 * repository and lets many tasks clone the same repository at once.
 * A folder left by an earlier, interrupted attempt is removed first: every attempt starts fresh.
 */
export async function prepareWorkingCopy(task: BatchTask, workRoot: string, signal: AbortSignal): Promise<string> {
  if (task.cwd) {
    if (!existsSync(task.cwd) || !statSync(task.cwd).isDirectory())
      throw new WorkingCopyError(`cwd ${task.cwd} is not a folder`);
    return task.cwd;
  }
  const dir = join(workRoot, folderNameOf(task.id));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(workRoot, { recursive: true });
  if (!task.repo) {
    mkdirSync(dir);
    return dir;
  }
  await git(["clone", "--quiet", "--shared", ...(task.ref ? ["--no-checkout"] : []), task.repo, dir], workRoot, signal);
  if (task.ref) {
    const commit = (await revParse(task.ref, dir, signal)) ?? (await revParse(`origin/${task.ref}`, dir, signal));
    if (!commit) throw new WorkingCopyError(`ref "${task.ref}" not found in ${task.repo}`);
    await git(["checkout", "--quiet", "--detach", commit], dir, signal);
  }
  return dir;
}

async function revParse(ref: string, cwd: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    return (await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], cwd, signal)).trim() || undefined;
  } catch {
    return undefined;
  }
}

function git(args: string[], cwd: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      { cwd, signal, timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } },
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
