// What a worker lets a queued job do: one record its operator sets (`harness worker`'s flags),
// and the checks of a job against it. Anyone who can write to the Redis can push a job, so
// nothing in a job widens the record: the settings that decide where the worker's keys go are
// the worker's own or on its allowlist, and a job runs only in folders and from repositories the
// worker was told to allow, and only where the one judgement of workspaces
// (wiring/home-workspace.ts, handed in as a TaskFolderCheck) lets a task run at all.
//
// Issue 47 (graded evaluations on shared queues) extends this same record with what a grader
// may run and read: add a field here and its check beside the others, so a worker's whole job
// policy stays one record read in one file.

import type { RunSettings } from "./batch-run.ts";
import { type BatchTask, localRepoPath } from "./batch-task.ts";
import { checkEnvironment, globMatches } from "./environment/environment-policy.ts";
import type { TaskFolderCheck } from "./working-copy.ts";

/** What a worker allows the jobs it takes. */
export interface WorkerPolicy {
  /** The worker's own settings: they win over what a job asks. */
  settings: RunSettings;
  /** Models (globs) a job may choose besides the worker's own (--allow-models). */
  allowModels: string[];
  /** Folders (real paths) a job's `cwd`, or a local repository it names, must be inside (--allow-dir). */
  allowDirs: string[];
  /** Repository URLs (globs) a job may have cloned (--allow-repo). */
  allowRepos: string[];
  /** Folders (real paths) a job's environment.rootfs must be inside (--allow-rootfs). */
  allowRootfs: string[];
  /** Image references (globs) a job's environment.image must match (--allow-images); none: no image. */
  allowImages: string[];
}

/** A job this worker will not run; the message says why (it becomes the task's error). */
export class JobRefused extends Error {
  override name = "JobRefused";
}

/** Throws JobRefused unless the provider and model a job names are the worker's or allowed. */
export function checkModel(policy: WorkerPolicy, provider: string | undefined, model: string | undefined): void {
  const own = policy.settings;
  if (
    provider !== undefined &&
    provider !== own.provider &&
    !matchesAny(policy.allowModels, [`${provider}/${model ?? ""}`])
  )
    throw new JobRefused(`provider "${provider}" is not this worker's${modelHint(policy)}`);
  const candidates = provider && model ? [model, `${provider}/${model}`] : [model ?? ""];
  if (model !== undefined && model !== own.model && !matchesAny(policy.allowModels, candidates))
    throw new JobRefused(`model "${model}" is not on this worker's --allow-models${modelHint(policy)}`);
}

/**
 * The folders a job of this worker may use: those the judgement of workspaces (`judge`) lets a
 * task use that are inside an --allow-dir. The worker checks a job's cwd and repo with it before
 * taking the job (checkPlaces), and its working copy checks where a repository's objects come
 * from with it too (working-copy.ts).
 */
export function folderCheckOf(policy: WorkerPolicy, judge: TaskFolderCheck): TaskFolderCheck {
  return (folder) => {
    const checked = judge(folder);
    if ("refused" in checked) return checked;
    const isAllowed = policy.allowDirs.some(
      (dir) => checked.folder === dir || checked.folder.startsWith(dir.endsWith("/") ? dir : `${dir}/`),
    );
    if (isAllowed) return checked;
    const allowed = policy.allowDirs.length > 0 ? ` (--allow-dir ${policy.allowDirs.join(", ")})` : "";
    return {
      refused: `${folder} is not inside a folder this worker allows${allowed || ": it was started without --allow-dir"}`,
    };
  };
}

/**
 * A job's `cwd` and `repo` as they will be used (a folder's real path), or JobRefused: a folder
 * `check` refuses (folderCheckOf), a relative path, or a repository URL not on --allow-repo. A
 * task with neither runs in a fresh empty folder of the worker's own.
 */
export function checkPlaces<T extends Pick<BatchTask, "cwd" | "repo" | "environment">>(
  task: T,
  policy: WorkerPolicy,
  check: TaskFolderCheck,
  judge: TaskFolderCheck,
): T {
  const cwd = task.cwd === undefined ? undefined : allowedFolder("cwd", task.cwd, check);
  if (task.environment) {
    // Judged by the judgement of workspaces alone (`judge`): a rootfs is not a folder the job writes.
    const allow = { rootfs: policy.allowRootfs, images: policy.allowImages };
    const checked = checkEnvironment(task.environment, allow, judge);
    if ("refused" in checked) throw new JobRefused(`environment: ${checked.refused}`);
    task = { ...task, environment: checked.environment };
  }
  if (task.repo === undefined) return { ...task, ...(cwd ? { cwd } : {}) };
  const local = localRepoPath(task.repo);
  if (local !== undefined) return { ...task, repo: allowedFolder("repo", local, check) };
  if (!matchesAny(policy.allowRepos, [task.repo]))
    throw new JobRefused(
      `repo ${task.repo} is not on this worker's --allow-repo${policy.allowRepos.length > 0 ? ` (allowed: ${policy.allowRepos.join(", ")})` : ""}`,
    );
  return task;
}

function allowedFolder(what: string, folder: string, check: TaskFolderCheck): string {
  if (!folder.startsWith("/")) throw new JobRefused(`${what} ${folder} is not an absolute path`);
  const checked = check(folder);
  if ("refused" in checked) throw new JobRefused(`${what} ${checked.refused}: no task runs there`);
  return checked.folder;
}

/** Whether a value matches one of the patterns (`*` matches any run of characters). */
function matchesAny(patterns: string[], candidates: string[]): boolean {
  return patterns.some((pattern) => candidates.some((candidate) => globMatches(pattern, candidate)));
}

function modelHint(policy: WorkerPolicy): string {
  return policy.allowModels.length > 0
    ? ` (allowed: ${policy.allowModels.join(", ")})`
    : "; start the worker with --model, or --allow-models to let batches choose";
}
