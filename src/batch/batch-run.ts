// A batch run: an id, the settings its tasks run with, and which of its tasks still need a run.
// The runs of a results file are written down beside it (results.runs.jsonl), one line each, so
// running the same command again resumes the same run, while another model (or --rerun) is a
// new run whose tasks all run again.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { VERSION } from "../shared/version.ts";
import type { BatchTask } from "./batch-task.ts";
import type { TaskResult } from "./task-result.ts";

/**
 * Times a task is tried in one run when its harness crashes or is killed: each later run of the
 * batch tries it again until then (a task that kills its harness every time must end somewhere).
 */
export const MAX_ATTEMPTS = 3;

/**
 * Times a task may be stopped by the run's `--max-cost` (`capped`) and run again after the cap is
 * raised; each such try is an attempt of its own (its own working copy and queue job).
 */
const MAX_CAPPED = 10;

/** The highest attempt number: every crash and every cap stop of a task is one. */
export const MAX_ATTEMPT_NUMBER = MAX_ATTEMPTS + MAX_CAPPED;

/** The settings every task of a run gets; a task's own `provider`, `model`, `maxTurns` win. */
export interface RunSettings {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** `--api` and `--thinking` as a user types them (`chat`, `high`), passed on to each task's harness. */
  api?: string;
  thinking?: string;
  maxTurns?: number;
}

/** One line of the runs file. */
export interface RunRecord {
  runId: string;
  startedAt: string;
  settings: RunSettings;
  harnessVersion: string;
}

/** The runs file of a results file: `results.jsonl` → `results.runs.jsonl`. */
export function runsPathOf(outPath: string): string {
  return `${outPath.replace(/\.jsonl$/, "")}.runs.jsonl`;
}

/**
 * The run this batch is: the latest run of the results file with the same settings (a resume),
 * unless `isRerun`; else a new run, recorded in the runs file before any task starts (so a batch
 * killed before its first result still resumes as the same run, and its queued jobs are found).
 */
export function openRun(
  outPath: string,
  settings: RunSettings,
  isRerun: boolean,
): { run: RunRecord; isResumed: boolean } {
  const runsPath = runsPathOf(outPath);
  const runs = readRuns(runsPath);
  const same = runs.filter((run) => sameSettings(run.settings, settings)).at(-1);
  if (same && !isRerun) return { run: same, isResumed: true };
  const run: RunRecord = {
    runId: newRunId(),
    startedAt: new Date().toISOString(),
    settings: defined(settings),
    harnessVersion: VERSION,
  };
  appendFileSync(runsPath, `${JSON.stringify(run)}\n`);
  return { run, isResumed: false };
}

function readRuns(path: string): RunRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        const run = JSON.parse(line) as RunRecord;
        return typeof run?.runId === "string" && run.settings ? [run] : [];
      } catch {
        return []; // a torn last line
      }
    });
}

/** `20261201-213000-3fa9c2`: sorts by start time, and is a valid BullMQ job id part (no ':'). */
function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

function sameSettings(a: RunSettings, b: RunSettings): boolean {
  return JSON.stringify(sortedEntries(defined(a))) === JSON.stringify(sortedEntries(defined(b)));
}

function defined(settings: RunSettings): RunSettings {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as RunSettings;
}

function sortedEntries(settings: RunSettings): Array<[string, unknown]> {
  return Object.entries(settings).sort(([a], [b]) => a.localeCompare(b));
}

/** A task still to run in this run, and which attempt it is. */
export interface PendingTask {
  task: BatchTask;
  attempt: number;
}

/**
 * The tasks of the run without a final result: none yet, or only `crashed` ones (fewer than
 * MAX_ATTEMPTS) and `capped` ones (stopped by the run's `--max-cost`: a later run with a higher
 * cap goes on; fewer than MAX_CAPPED). Such a line stays in the file (what it spent counts); the
 * next attempt's line follows it.
 */
export function pendingTasks(tasks: BatchTask[], results: TaskResult[], runId: string): PendingTask[] {
  const ofRun = results.filter((result) => result.runId === runId);
  return tasks.flatMap((task) => {
    const mine = ofRun.filter((result) => result.id === task.id);
    if (mine.some((result) => result.status !== "crashed" && result.status !== "capped")) return [];
    const crashes = mine.filter((result) => result.status === "crashed").length;
    const capped = mine.length - crashes;
    return crashes >= MAX_ATTEMPTS || capped >= MAX_CAPPED ? [] : [{ task, attempt: mine.length + 1 }];
  });
}
