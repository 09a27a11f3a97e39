// One task of a batch, as a line of tasks.jsonl says it, and the file of them.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { describeIssues } from "../shared/describe-issue.ts";
import { environmentSchema, resolveEnvironment } from "./environment/task-environment.ts";
import { logParserFor } from "./grading/log-parsers.ts";
import { testList } from "./grading/swe-bench-grading.ts";

/** Longest task id; ids name working-copy folders and BullMQ jobs. */
const MAX_TASK_ID_LENGTH = 200;

/** Most attempts of one task at once (`attempts`), as `--attempts` allows: each is a clone, a child harness, a spend. */
const MAX_ATTEMPTS = 16;

/**
 * Node's timers take at most 2^31-1 ms (about 24.8 days); a longer delay fires at once
 * (https://nodejs.org/api/timers.html#settimeoutcallback-delay-args), so a longer timeout is refused.
 */
const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);
const timeoutSchema = z
  .number()
  .positive()
  .max(MAX_TIMEOUT_S, `at most ${MAX_TIMEOUT_S} seconds (about 24.8 days: Node's timers take no longer)`);

const taskLineSchema = z.strictObject({
  id: z.union([z.string().min(1).max(MAX_TASK_ID_LENGTH), z.number().int().nonnegative()]).transform(String),
  prompt: z.string().min(1),
  cwd: z.string().min(1).optional(),
  repo: z.string().min(1).optional(),
  ref: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  maxTurns: z.number().int().positive().optional(),
  setup: z.string().min(1).optional(),
  test: z.string().min(1).optional(),
  /** Wall-clock seconds for the whole task (setup, agent, test). */
  timeout: timeoutSchema.optional(),
  /** USD the task's model calls may spend. */
  maxCost: z.number().positive().optional(),
  /** The answer's JSON Schema (`--json-schema` for the task's harness); checked before the batch runs. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Best of N: this many attempts at once, each in a working copy of its own (task-attempts.ts). */
  attempts: z.number().int().min(1).max(MAX_ATTEMPTS).optional(),
  /** Where setup, the agent's commands and test run: a root filesystem or an image (environment/). */
  environment: environmentSchema.optional(),
  /** Graded as SWE-bench grades (grading/): from a SWE-bench line's FAIL_TO_PASS, PASS_TO_PASS and test_patch. */
  grading: z
    .strictObject({
      failToPass: z.array(z.string()),
      passToPass: z.array(z.string()),
      testPatch: z.string().optional(),
      /** The SWE-bench repository (`owner/name`) whose log parser reads the test's output (grading/log-parsers.ts). */
      repo: z.string().optional(),
    })
    .optional(),
});

/**
 * A SWE-bench instance (a line of the dataset as JSONL, as `datasets` exports it): its
 * `problem_statement` is the prompt, run in a clone of `repo` at `base_commit`. The dataset's
 * other columns are known and not used (the gold `patch`, `test_patch`, FAIL_TO_PASS, ...); a
 * column not listed here is an error, as for our own lines. `test_command` (ours: SWE-bench has
 * none) is run after the agent, like `test`.
 */
const sweBenchSchema = z.strictObject({
  instance_id: z.string().min(1).max(MAX_TASK_ID_LENGTH),
  repo: z.string().min(1),
  base_commit: z.string().min(1),
  problem_statement: z.string().min(1),
  test_command: z.string().min(1).optional(),
  setup: z.string().min(1).optional(),
  maxTurns: z.number().int().positive().optional(),
  timeout: timeoutSchema.optional(),
  maxCost: z.number().positive().optional(),
  patch: z.string().optional(),
  test_patch: z.string().optional(),
  hints_text: z.string().optional(),
  created_at: z.string().optional(),
  version: z.string().optional(),
  environment_setup_commit: z.string().optional(),
  FAIL_TO_PASS: z.union([z.string(), z.array(z.string())]).optional(),
  PASS_TO_PASS: z.union([z.string(), z.array(z.string())]).optional(),
  image_name: z.string().optional(),
  environment: environmentSchema.optional(),
});

/** A SWE-bench instance as a task line; `repo` (`owner/name`) is a folder beside the tasks file if there is one, else GitHub. */
function fromSweBench(instance: z.infer<typeof sweBenchSchema>, base: string): z.input<typeof taskLineSchema> {
  const local = resolve(base, instance.repo);
  const isSlug = /^[\w.-]+\/[\w.-]+$/.test(instance.repo);
  return {
    id: instance.instance_id,
    prompt: instance.problem_statement,
    repo: isSlug && !existsSync(local) ? `https://github.com/${instance.repo}.git` : instance.repo,
    ref: instance.base_commit,
    ...(instance.test_command ? { test: instance.test_command } : {}),
    ...(instance.setup ? { setup: instance.setup } : {}),
    ...(instance.maxTurns ? { maxTurns: instance.maxTurns } : {}),
    ...(instance.timeout ? { timeout: instance.timeout } : {}),
    ...(instance.maxCost ? { maxCost: instance.maxCost } : {}),
    ...(instance.environment ? { environment: instance.environment } : {}),
    // Graded when it is a whole instance (its test_patch brings the FAIL_TO_PASS tests); else the exit code decides.
    ...(instance.test_command && instance.test_patch && (instance.FAIL_TO_PASS || instance.PASS_TO_PASS)
      ? {
          grading: {
            failToPass: testList(instance.FAIL_TO_PASS),
            passToPass: testList(instance.PASS_TO_PASS),
            testPatch: instance.test_patch,
            repo: checkedParser(instance.repo),
          },
        }
      : {}),
  };
}

/** Attempts in one shared `cwd` would edit each other's files: each needs a copy of its own. */
const ATTEMPTS_NEED_COPIES =
  "more than one attempt needs repo (or no folder), not cwd: attempts in one cwd would edit the same files";

/** A task as a queue job carries it: paths already absolute (the batch resolved them). */
export const queuedTaskSchema = taskLineSchema.superRefine((task, context) => {
  if (task.cwd && !isAbsolute(task.cwd))
    context.addIssue({ code: "custom", path: ["cwd"], message: "must be absolute" });
  if (task.cwd && task.repo) context.addIssue({ code: "custom", path: ["repo"], message: "give either cwd or repo" });
  if (task.ref && !task.repo) context.addIssue({ code: "custom", path: ["ref"], message: "ref needs repo" });
  if (task.cwd && (task.attempts ?? 1) > 1)
    context.addIssue({ code: "custom", path: ["attempts"], message: ATTEMPTS_NEED_COPIES });
  // A rootfs is judged by the worker (--allow-rootfs, batch/environment/environment-policy.ts).
  if (task.environment?.rootfs && !isAbsolute(task.environment.rootfs))
    context.addIssue({ code: "custom", path: ["environment", "rootfs"], message: "must be absolute" });
});

/**
 * A task: `prompt` run in `cwd` (used as it is), or in a fresh clone of `repo` at `ref`, or in a
 * fresh empty folder. `setup` runs before the agent and `test` after it (`sh -c` in the working
 * copy). `timeout` and `maxCost` end it when reached. Paths are absolute once read (relative ones
 * are taken from the tasks file's folder).
 */
export type BatchTask = z.infer<typeof taskLineSchema>;

/** A tasks file that cannot be run; the message names the line and the field. */
export class TaskFileError extends Error {
  override name = "TaskFileError";
}

/** Reads tasks.jsonl: one JSON task per line; blank lines and lines starting with `#` are skipped. */
export function readTasks(path: string): BatchTask[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TaskFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const base = dirname(resolve(path));
  const tasks: BatchTask[] = [];
  const lineOfId = new Map<string, number>();
  const folderOfId = new Map<string, string>();
  text.split("\n").forEach((line, index) => {
    const lineNumber = index + 1;
    if (!line.trim() || line.trimStart().startsWith("#")) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new TaskFileError(`${path}:${lineNumber}: not a JSON object`);
    }
    const isInstance = typeof json === "object" && json !== null && "instance_id" in json;
    const instance = isInstance ? sweBenchSchema.safeParse(json) : undefined;
    if (instance && !instance.success)
      throw new TaskFileError(
        `${path}:${lineNumber}: SWE-bench instance: ${describeIssues(instance.error, Object.keys(sweBenchSchema.shape))}`,
      );
    let taskLine: unknown = json;
    try {
      if (instance?.success) taskLine = fromSweBench(instance.data, base);
    } catch (error) {
      throw new TaskFileError(`${path}:${lineNumber}: SWE-bench instance: ${(error as Error).message}`);
    }
    const parsed = taskLineSchema.safeParse(taskLine);
    if (!parsed.success)
      throw new TaskFileError(
        `${path}:${lineNumber}: ${describeIssues(parsed.error, Object.keys(taskLineSchema.shape))}`,
      );
    const task = parsed.data;
    if (task.cwd && task.repo) throw new TaskFileError(`${path}:${lineNumber}: give either cwd or repo, not both`);
    if (task.ref && !task.repo) throw new TaskFileError(`${path}:${lineNumber}: ref needs repo`);
    if (task.cwd && (task.attempts ?? 1) > 1)
      throw new TaskFileError(`${path}:${lineNumber}: attempts: ${ATTEMPTS_NEED_COPIES}`);
    const earlier = lineOfId.get(task.id);
    if (earlier !== undefined)
      throw new TaskFileError(
        `${path}:${lineNumber}: id "${task.id}" is already used on line ${earlier}; ids must be unique (results are matched by id)`,
      );
    const folder = folderNameOf(task.id);
    const clash = folderOfId.get(folder);
    if (clash !== undefined)
      throw new TaskFileError(
        `${path}:${lineNumber}: ids "${clash}" and "${task.id}" differ only in characters a folder name cannot hold; rename one`,
      );
    lineOfId.set(task.id, lineNumber);
    folderOfId.set(folder, task.id);
    tasks.push({
      ...task,
      ...(task.cwd ? { cwd: resolve(base, task.cwd) } : {}),
      ...(task.repo ? { repo: resolveRepo(base, task.repo) } : {}),
      ...(task.environment ? { environment: resolveEnvironment(task.environment, base) } : {}),
    });
  });
  return tasks;
}

/** A task id as a folder (and BullMQ job id) name: letters, digits, `.`, `_`, `-` only. */
export function folderNameOf(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
}

/** A repository path is taken from the tasks file's folder; a URL (`file://...`, `host:path`) as it is. */
function resolveRepo(base: string, repo: string): string {
  return isAbsolute(repo) || isRepoUrl(repo) ? repo : resolve(base, repo);
}

/** A URL git reads (`https://`, `file://`), or its `host:path` (ssh) and `helper::address` forms. */
function isRepoUrl(repo: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[^/]+:/.test(repo);
}

/**
 * Where a repository lies on this machine, or undefined for one on another machine (a URL).
 * A `file://` URL is its path (git reads it so); one with a `%` escape or a host is kept whole,
 * so it is judged as the relative path it is not, and refused.
 */
export function localRepoPath(repo: string): string | undefined {
  const file = /^file:\/\/(.*)$/i.exec(repo);
  if (file) return file[1].startsWith("/") && !file[1].includes("%") ? file[1] : repo;
  return isRepoUrl(repo) ? undefined : repo;
}

/** The instance's repository, once its log parser is known to exist: a file whose repository has none is refused as it loads. */
function checkedParser(repo: string): string {
  logParserFor(repo);
  return repo;
}
