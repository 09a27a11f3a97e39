// `harness batch tasks.jsonl`: many tasks, each in its own working copy and session, on this
// machine (a pool of child harnesses) or across machines (`--queue`: BullMQ on Redis, run by
// `harness worker`). `harness batch report a.jsonl [b.jsonl ...]`: what runs added up to.

import { resolve } from "node:path";
import { AttemptFiles, recordLostAttempts } from "../../batch/attempt-journal.ts";
import { BatchProgress } from "../../batch/batch-progress.ts";
import { openRun, pendingTasks } from "../../batch/batch-run.ts";
import { readTasks, TaskFileError } from "../../batch/batch-task.ts";
import { CostBudget } from "../../batch/cost-budget.ts";
import { selectionOf, selectTasks } from "../../batch/dataset-selection.ts";
import { rateLimitBackoffFrom, runLocalBatch } from "../../batch/local-pool.ts";
import { type QueueTarget, QueueUrlError } from "../../batch/queue/queue-target.ts";
import { Reaper } from "../../batch/reaper.ts";
import { ResultsFileError, ResultsWriter, readResults } from "../../batch/results-file.ts";
import { lockResults, ResultsLockError } from "../../batch/results-lock.ts";
import type { TaskResult } from "../../batch/task-result.ts";
import { trajectoriesOf } from "../../batch/trajectory.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { countOf } from "../../shared/helpers.ts";
import { loadConfigFile } from "../../wiring/config-file.ts";
import { ConfigError } from "../../wiring/defaults.ts";
import { type Flags, PROVIDER_FLAGS, parseFlags } from "../cli-args.ts";
import { DATASET_FLAGS, DATASET_HELP } from "../flag-schemas.ts";
import { finish } from "./batch-finish.ts";
import { runReport } from "./batch-report.ts";
import { sessionSpendFor } from "./batch-sessions.ts";
import { checkOutputSchemas, priceCallFor, refusedFolder, settingsFromFlags, taskRunOptions } from "./batch-wiring.ts";
import { QUEUE_SECRETS_HELP, queueTargetOf } from "./queue-flags.ts";

/** Tasks at once when --concurrency is not given. */
const DEFAULT_CONCURRENCY = 4;

const USAGE = `Usage: harness batch <tasks.jsonl> [options]
       harness batch report <results.jsonl> [<results.jsonl> ...] [--html report.html] [--json]
       harness batch clean [--out results.jsonl] [--workdir <dir>] [--dry-run]
       harness batch clean --queue <url> [--dry-run]

Runs each task of tasks.jsonl (one JSON object per line: id, prompt, and optionally cwd, or repo
and ref, model, provider, maxTurns, setup, test, timeout (seconds), maxCost (USD), outputSchema
(the answer's JSON Schema, as --json-schema), attempts (best of N); or SWE-bench instances) in its own working copy and session, and appends one JSON line per finished task to
the results file. Running the same command again resumes the same run: finished tasks are
skipped. Other settings (another --model), or --rerun, make a new run in which every task runs.

Options:
  --out <file>            results file (default results.jsonl)
  --concurrency <n>       tasks at once on this machine (default ${DEFAULT_CONCURRENCY})
  --workdir <dir>         where working copies are made (default <out without .jsonl>.work)
  --queue <url>           redis://[user@]host:port/name (rediss:// for TLS): queue the tasks
                          for \`harness worker\`s instead
${QUEUE_SECRETS_HELP}  --max-cost <usd>        stop the run once its tasks have spent this much
  --rerun                 a new run even when the results file holds one with these settings
  --snapshots             keep undo snapshots of the tasks' working copies (off in batches)
${DATASET_HELP}  --provider, --model, --base-url, --api, --thinking, --max-turns
                          for every task (a task's own provider, model, maxTurns win)
Tasks run with --yes: every tool call is approved. Run batches where that is safe.
`;

/** The flags `harness batch` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const BATCH_FLAGS = [
  "out",
  "concurrency",
  "workdir",
  "queue",
  "queue-password-file",
  "queue-key-file",
  "max-cost",
  "rerun",
  "snapshots",
  ...DATASET_FLAGS,
  ...PROVIDER_FLAGS,
  "help",
] as const;

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === "report") return runReport(argv.slice(1));
  if (argv[0] === "clean") return (await import("./batch-clean.ts")).runClean(argv.slice(1));
  const args = parseBatchArgs(argv);
  if (typeof args === "number") return args;
  const { flags, tasksPath, target } = args;
  const settings = settingsFromFlags(flags);
  let tasks;
  let config;
  try {
    tasks = selectTasks(readTasks(tasksPath), selectionOf(flags)); // a bad --slice too: exit 2
    await checkOutputSchemas(tasksPath, tasks);
    config = loadConfigFile(process.env);
  } catch (error) {
    if (!(error instanceof TaskFileError) && !(error instanceof ConfigError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 2;
  }
  const outPath = resolve(flags.out ?? "results.jsonl");
  try {
    readResults(outPath); // a line of the wrong shape stops the batch here, before it runs or appends anything
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 2;
  }
  const workRoot = resolve(flags.workdir ?? `${outPath.replace(/\.jsonl$/, "")}.work`);
  const refusal = refusedFolder(tasksPath, tasks, target ? undefined : workRoot);
  if (refusal) {
    process.stderr.write(`harness: ${showControlChars(refusal)}; nothing was run\n`);
    return 2;
  }
  let unlock: () => void;
  try {
    unlock = lockResults(outPath);
  } catch (error) {
    if (!(error instanceof ResultsLockError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 1;
  }
  const reaper = new Reaper();
  try {
    const { run, isResumed } = openRun(outPath, settings, Boolean(flags.rerun));
    const writer = new ResultsWriter(outPath);
    const attempts = new AttemptFiles(outPath, run.runId);
    const earlier = resultsOfRun(outPath, run.runId, { writer, attempts, config, settings });
    const pending = pendingTasks(tasks, earlier, run.runId);
    const progress = new BatchProgress(process.stderr, tasks.length, tasks.length - pending.length);
    progress.note(
      isResumed
        ? `resuming run ${run.runId}: ${tasks.length - pending.length} of ${tasks.length} tasks already have results in ${outPath}; running the other ${pending.length}`
        : `run ${run.runId}: ${countOf(tasks.length, "task")}`,
    );
    const spentBefore = earlier.reduce((sum, result) => sum + (result.cost ?? 0), 0);
    const budget = flags["max-cost"] === undefined ? undefined : new CostBudget(flags["max-cost"], spentBefore);

    // The first Ctrl-C (or SIGTERM) stops the running tasks and leaves them unrecorded, so the
    // same command runs them again; a second one exits at once.
    const controller = new AbortController();
    const onSignal = () => {
      if (controller.signal.aborted) process.exit(130);
      controller.abort();
      progress.note(
        target
          ? "interrupted: the queued tasks stay queued; run the same command again to collect their results"
          : "interrupted: stopping the running tasks; run the same command again to resume",
      );
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      const batch = {
        ...{ flags, config, reaper, outPath, workRoot, runId: run.runId, settings },
        ...{ writer, attempts, progress, budget },
      };
      await runPending(batch, target, pending, controller.signal);
    } catch (error) {
      if (!(error instanceof QueueUrlError)) throw error;
      progress.close();
      process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
      return 1;
    } finally {
      writer.close();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    progress.close();
    return finish({
      outPath,
      runId: run.runId,
      tasks: tasks.map((task) => task.id),
      budget,
      aborted: controller.signal.aborted,
    });
  } finally {
    reaper.close();
    unlock();
  }
}

type BatchFlags = Flags<(typeof BATCH_FLAGS)[number]>;

/**
 * The run's lines so far, after recording the attempts the last batch never finished (a SIGKILL,
 * Ctrl-C) with what they spent, read from their harnesses' session files.
 */
function resultsOfRun(
  outPath: string,
  runId: string,
  where: {
    writer: ResultsWriter;
    attempts: AttemptFiles;
    config: ReturnType<typeof loadConfigFile>;
    settings: ReturnType<typeof settingsFromFlags>;
  },
): TaskResult[] {
  const { config, settings } = where;
  const earlier = readResults(outPath).filter((result) => result.runId === runId);
  const price = priceCallFor(config, settings.provider ?? process.env.HARNESS_PROVIDER ?? config.provider);
  const lost = recordLostAttempts(
    where.attempts,
    earlier,
    { runId, thinking: settings.thinking },
    sessionSpendFor(price),
    (line) => where.writer.append(line),
  );
  return [...earlier, ...lost];
}

/** The flags, the tasks file and the queue, or the exit code of a usage error (already reported). */
function parseBatchArgs(argv: string[]): { flags: BatchFlags; tasksPath: string; target?: QueueTarget } | number {
  try {
    const parsed = parseFlags(argv, BATCH_FLAGS, { positionals: true });
    const { flags } = parsed;
    if (flags.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new Error("give one tasks file");
    const target = queueTargetOf(flags);
    if (target && flags["base-url"] !== undefined)
      throw new Error(
        "--base-url is not sent to workers (it says where they send their keys): give it to each `harness worker`",
      );
    return { flags, tasksPath: parsed.positionals[0], target };
  } catch (error) {
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n${USAGE}`);
    return 2;
  }
}

/** The run's pending tasks, on a queue for workers or on this machine. */
async function runPending(
  batch: {
    flags: BatchFlags;
    config: ReturnType<typeof loadConfigFile>;
    reaper: Reaper;
    outPath: string;
    workRoot: string;
    runId: string;
    settings: ReturnType<typeof settingsFromFlags>;
    writer: ResultsWriter;
    attempts: AttemptFiles;
    progress: BatchProgress;
    budget: CostBudget | undefined;
  },
  target: QueueTarget | undefined,
  pending: ReturnType<typeof pendingTasks>,
  signal: AbortSignal,
): Promise<void> {
  const { flags, runId, settings, writer, progress, budget } = batch;
  if (target) {
    const { runQueueBatch } = await import("../../batch/queue/queue-batch.ts");
    await runQueueBatch({ target, runId, tasks: pending, settings, writer, progress, budget, signal });
    return;
  }
  await runLocalBatch({
    tasks: pending,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    run: {
      ...taskRunOptions({
        env: process.env,
        config: batch.config,
        provider: settings.provider,
        workRoot: batch.workRoot,
        trajectories: trajectoriesOf(batch.outPath),
        withSnapshots: Boolean(flags.snapshots),
        groups: batch.reaper,
      }),
      runId,
      settings,
      budget,
    },
    writer,
    attempts: batch.attempts,
    progress,
    signal,
    rateLimitBackoffMs: rateLimitBackoffFrom(process.env),
  });
}
