// `harness batch clean --worker-dir <dir> [--dry-run]`: removes the working copies a queue worker
// (`harness worker --workdir <dir>`) left, `<dir>/<run id>/<task>[.n]` with their `.base.git` and
// `.diff-index`, for the jobs whose final result its journal (`<dir>/.harness-journal/`) stored.
//
// What it judges safe, and why (*decisions*):
// - A worker holds no lock on its folder, and this takes none: it may run while the worker does.
//   That is safe because it removes only a copy that a try record of the journal names
//   (`<job>.try-<n>.json`, written before the try's harness starts) and whose job has its final
//   result stored there (`<job>.done.json`, written before the result is sent to Redis). A worker
//   never runs such a job again (it sends the stored result again: queue-worker.ts), and what a
//   Redis that restarted empty needs back is the journal, which is never touched, not the copies.
// - A copy whose job has no stored result (running, stopped mid-try, or not yet finished) is kept
//   and said. A copy no record names is not looked at: it may be one a try is making right now
//   (its record is written once the copy is made), or a rate-limited try's, whose record was taken
//   back; such leftovers stay (the worker's folder can be removed by hand once no worker uses it).
// - Paths come from the journal, so they are checked as if an attacker wrote them: only a copy
//   exactly two levels under the folder, in a run folder with a plain name, neither of them a
//   symbolic link (said and left alone); `environments/`, `trajectories/` and the journal never.
import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { KEPT_FILES, lstatOrUndefined, type Removal, RUN_FOLDER, sayPlan, sizeOf } from "./batch-clean-plan.ts";

/** The worker's own folders beside its run folders: never a run's. */
const WORKER_FOLDERS = new Set(["environments", "trajectories", ".harness-journal"]);
const TRY_RECORD = /^(.+)\.try-\d+(?:\.\d+)?\.json$/;

export function cleanWorkerDir(dir: string, isDry: boolean, say: (line: string) => void): number {
  const journal = join(dir, ".harness-journal");
  const stat = lstatOrUndefined(journal);
  if (!stat?.isDirectory()) {
    const why = stat?.isSymbolicLink() ? "is a symbolic link (not followed)" : "is not there";
    process.stderr.write(`harness: ${journal} ${why}: not a worker's folder (harness worker --workdir)\n`);
    return 2;
  }
  const roots = [dir, realpathSync(dir)];
  const byCopy = new Map<string, Removal>();
  const kept = new Map<string, string>();
  for (const name of readdirSync(journal).sort()) {
    const jobId = TRY_RECORD.exec(name)?.[1];
    if (!jobId) continue;
    const copy = copyOf(roots, readWorkdir(join(journal, name)));
    if (!copy || byCopy.has(copy.path) || kept.has(copy.path)) continue;
    const runDir = lstatOrUndefined(copy.runDir);
    if (!runDir) continue;
    if (!runDir.isDirectory()) {
      kept.set(
        copy.runDir,
        `${copy.runDir}: ${runDir.isSymbolicLink() ? "a symbolic link" : "not a folder"}; not followed`,
      );
      continue;
    }
    const isDone = lstatOrUndefined(join(journal, `${jobId}.done.json`))?.isFile() ?? false;
    const removal: Removal = { path: copy.path, paths: [], bytes: 0 };
    for (const path of [copy.path, `${copy.path}.base.git`, `${copy.path}.diff-index`]) {
      const entry = lstatOrUndefined(path);
      if (!entry) continue;
      if (entry.isSymbolicLink()) kept.set(path, `${path}: a symbolic link; left alone (not followed)`);
      else if (!isDone)
        kept.set(copy.path, `${copy.path}: job ${jobId} has no stored result yet (running, or stopped)`);
      else {
        removal.paths.push(path);
        removal.bytes += sizeOf(path);
      }
    }
    if (removal.paths.length > 0) byCopy.set(copy.path, removal);
  }
  sayPlan([...byCopy.values()], [...kept.values()], isDry, dir, say);
  return 0;
}

/** The record's working copy, if it is `<root>/<run>/<copy>` of one of the folder's names; else undefined. */
function copyOf(roots: string[], workdir: string | undefined): { path: string; runDir: string } | undefined {
  if (!workdir || !isAbsolute(workdir)) return undefined;
  for (const root of roots) {
    const parts = relative(root, workdir).split(sep);
    const [run, name] = parts;
    if (parts.length !== 2 || !run || !name || WORKER_FOLDERS.has(run)) continue;
    if (!RUN_FOLDER.test(run) || !RUN_FOLDER.test(name) || KEPT_FILES.test(name)) continue;
    return { path: join(roots[0] as string, run, name), runDir: join(roots[0] as string, run) };
  }
  return undefined;
}

function readWorkdir(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile()) return undefined;
    const { workdir } = JSON.parse(readFileSync(path, "utf8")) as { workdir?: unknown };
    return typeof workdir === "string" ? workdir : undefined;
  } catch {
    return undefined;
  }
}
