// `harness batch clean [--out results.jsonl] [--workdir dir] [--dry-run]`: removes the working
// copies a batch on this machine left behind (`<workdir>/<run id>/<task>[.n]`, with their
// `.base.git` and `.diff-index` beside them), keeping what is a result: the grading reports
// (`<task>.report.json`), the trajectories, the results, sessions and predictions. A queue
// worker's copies (`--worker-dir`): batch-clean-worker.ts.
//
// What it judges safe, and why (*decisions*):
// - It holds the results file's lock while it works (results-lock.ts), as a batch does: a batch
//   running on that file makes it stop with the batch's pid, and no batch starts meanwhile. So no
//   copy it removes can be one a running attempt works in.
// - Only folders of runs that the results file knows (its runs file and its lines), one level
//   under `<workdir>/<run id>/`: a `cwd` task's folder (the user's own) is never under it, and a
//   results line naming some path removes nothing (paths are never taken from a line).
// - A copy whose attempt the next run still has to record (`results.attempts/`, left by a batch
//   that was killed) is kept: its record names it.
// - Nothing is followed through a symbolic link: a run folder or an entry that is one is left as it
//   is and said, so a link planted among the copies cannot make it delete what it points to. The
//   working-copies folder itself may be a link (the user's own choice): it is resolved once.
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { AttemptFiles } from "../../batch/attempt-journal.ts";
import { runsPathOf } from "../../batch/batch-run.ts";
import { ResultsFileError, readResults } from "../../batch/results-file.ts";
import { lockResults, ResultsLockError } from "../../batch/results-lock.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { parseFlags } from "../cli-args.ts";
import { KEPT_FILES, lstatOrUndefined, type Removal, RUN_FOLDER, sayPlan, sizeOf } from "./batch-clean-plan.ts";
import { QUEUE_SECRETS_HELP, queueTargetOf } from "./queue-flags.ts";

const CLEAN_USAGE = `Usage: harness batch clean [--out results.jsonl] [--workdir <dir>] [--dry-run]
       harness batch clean --queue redis://host:port/name [--dry-run]
       harness batch clean --worker-dir <dir> [--dry-run]
Removes the working copies that the runs of a results file left in its working-copies folder,
keeping results, grading reports, trajectories and sessions. Refuses while a batch writes that file.
With --queue, removes instead from Redis the jobs and keys of the queue's finished runs (each
run's batch recorded every result, and no batch runs it), keeping every other run.
With --worker-dir, removes instead the copies a worker (harness worker --workdir) left for jobs
whose result its journal stored, keeping running or undelivered ones, the journal and trajectories.
  --out <file>     the results file (default results.jsonl)
  --workdir <dir>  the batch's working copies (default <out without .jsonl>.work)
  --queue <url>    the queue to clean (as harness batch --queue)
  --worker-dir <dir>
                   a worker's --workdir to clean
  --dry-run        list what would be removed, with sizes, and remove nothing
${QUEUE_SECRETS_HELP}`;

/** The flags `harness batch clean` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const CLEAN_FLAGS = [
  "out",
  "workdir",
  "dry-run",
  "queue",
  "worker-dir",
  "queue-key-file",
  "queue-password-file",
  "help",
] as const;

export async function runClean(argv: string[]): Promise<number> {
  let flags;
  try {
    const parsed = parseFlags(argv, CLEAN_FLAGS, { positionals: true });
    flags = parsed.flags;
    if (flags.help) {
      process.stdout.write(CLEAN_USAGE);
      return 0;
    }
    if (parsed.positionals.length > 0) throw new Error(`unexpected argument "${parsed.positionals[0]}"`);
  } catch (error) {
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n${CLEAN_USAGE}`);
    return 2;
  }
  const say = (line: string) => process.stdout.write(`${showControlChars(line)}\n`);
  if (flags["worker-dir"] !== undefined) {
    // Its own flag, not --workdir: that one names a batch's copies, judged by its results file.
    if (flags.out !== undefined || flags.workdir !== undefined || flags.queue !== undefined) {
      process.stderr.write(
        "harness: --worker-dir cleans a worker's folder: give it without --out, --workdir, --queue\n",
      );
      return 2;
    }
    const { cleanWorkerDir } = await import("./batch-clean-worker.ts");
    return cleanWorkerDir(resolve(flags["worker-dir"]), Boolean(flags["dry-run"]), say);
  }
  if (flags.queue !== undefined) {
    let target;
    try {
      if (flags.out !== undefined || flags.workdir !== undefined)
        throw new Error("--queue cleans Redis; --out and --workdir clean working copies: give one or the other");
      target = queueTargetOf(flags);
    } catch (error) {
      process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n`);
      return 2;
    }
    if (!target) return 2;
    return (await import("./batch-clean-queue.ts")).cleanQueue(target, Boolean(flags["dry-run"]), say);
  }
  const outPath = resolve(flags.out ?? "results.jsonl");
  const workRoot = resolve(flags.workdir ?? `${outPath.replace(/\.jsonl$/, "")}.work`);
  if (!existsSync(outPath) && !existsSync(runsPathOf(outPath))) {
    process.stderr.write(`harness: ${showControlChars(outPath)}: no batch results here; give the batch's --out\n`);
    return 2;
  }
  let unlock: () => void;
  try {
    unlock = lockResults(outPath);
  } catch (error) {
    if (!(error instanceof ResultsLockError)) throw error;
    process.stderr.write(`harness: not cleaned: ${showControlChars(error.message)}\n`);
    return 1;
  }
  try {
    const runIds = runIdsOf(outPath);
    const { removals, kept } = plan(workRoot, runIds, outPath);
    sayPlan(removals, kept, Boolean(flags["dry-run"]), workRoot, say);
    return 0;
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 2;
  } finally {
    unlock();
  }
}
/** The runs of the results file: its runs file's and its lines' (an older file has only the lines). */
function runIdsOf(outPath: string): Set<string> {
  const ids = new Set<string>();
  for (const result of readResults(outPath)) if (result.runId) ids.add(result.runId);
  let text = "";
  try {
    text = readFileSync(runsPathOf(outPath), "utf8");
  } catch {
    // no runs file: a results file of a version before runs had ids
  }
  for (const line of text.split("\n")) {
    try {
      const run = JSON.parse(line) as { runId?: unknown };
      if (typeof run.runId === "string") ids.add(run.runId);
    } catch {
      // a torn last line
    }
  }
  return ids;
}

/** What would go, and what stays that is worth saying. */
function plan(workRoot: string, runIds: Set<string>, outPath: string): { removals: Removal[]; kept: string[] } {
  const byCopy = new Map<string, Removal>();
  const kept: string[] = [];
  if (!existsSync(workRoot)) return { removals: [], kept };
  const root = realpathSync(workRoot);
  for (const runId of runIds) {
    if (!RUN_FOLDER.test(runId)) {
      kept.push(`run "${runId}": not a folder name; its copies (if any) are not looked for`);
      continue;
    }
    const runDir = join(root, runId);
    const stat = lstatOrUndefined(runDir);
    if (!stat) continue;
    if (!stat.isDirectory()) {
      kept.push(`${runDir}: ${stat.isSymbolicLink() ? "a symbolic link" : "not a folder"}; not followed`);
      continue;
    }
    const recording = new Set(
      new AttemptFiles(outPath, runId).list().flatMap((record) => (record.workdir ? [resolve(record.workdir)] : [])),
    );
    for (const name of readdirSync(runDir).sort()) {
      const path = join(runDir, name);
      const entry = lstatOrUndefined(path);
      if (!entry || KEPT_FILES.test(name)) continue;
      if (entry.isSymbolicLink()) {
        kept.push(`${path}: a symbolic link; left alone (not followed)`);
        continue;
      }
      const copy = path.replace(/\.(base\.git|diff-index)$/, "");
      const isPart = copy !== path;
      if (!entry.isDirectory() && !(isPart && entry.isFile())) continue;
      if (recording.has(copy) || recording.has(join(workRoot, runId, copy.slice(runDir.length + 1)))) {
        if (!isPart) kept.push(`${path}: its attempt is recorded by the next run of the batch first`);
        continue;
      }
      const removal = byCopy.get(copy) ?? { path: copy, paths: [], bytes: 0 };
      removal.paths.push(path);
      removal.bytes += sizeOf(path);
      byCopy.set(copy, removal);
    }
  }
  return { removals: [...byCopy.values()], kept };
}
