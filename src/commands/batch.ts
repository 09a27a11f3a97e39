// `harness batch tasks.jsonl`: many tasks, each in its own working copy and session, on this
// machine (a pool of child harnesses) or across machines (`--queue`: BullMQ on Redis, run by
// `harness worker`). `harness batch report results.jsonl`: what a batch added up to.
import { writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parseFlags, PROVIDER_FLAGS } from "../cli-args.ts";
import { readTasks, TaskFileError } from "../batch/batch-task.ts";
import { BatchProgress } from "../batch/batch-progress.ts";
import { formatSummary, latestResults, summarize } from "../batch/batch-report.ts";
import { currentHarnessCommand } from "../batch/harness-child.ts";
import { rateLimitBackoffFrom, runLocalBatch } from "../batch/local-pool.ts";
import { parseQueueUrl, QueueUrlError, type QueueTarget } from "../batch/queue-target.ts";
import { reportHtml } from "../batch/report-html.ts";
import { readResults, ResultsWriter } from "../batch/results-file.ts";
import type { TaskDefaults } from "../batch/run-task.ts";
import { wireApiName } from "../providers/wire-apis.ts";

/** Tasks at once when --concurrency is not given. */
const DEFAULT_CONCURRENCY = 4;

const USAGE = `Usage: harness batch <tasks.jsonl> [options]
       harness batch report <results.jsonl> [--html report.html]

Runs each task of tasks.jsonl (one JSON object per line: id, prompt, and optionally cwd, or repo
and ref, model, provider, maxTurns, setup, test) in its own working copy and session, and
appends one JSON line per finished task to the results file. Running the same command again
skips the tasks that already have a result, so an interrupted batch resumes.

Options:
  --out <file>            results file (default results.jsonl)
  --concurrency <n>       tasks at once on this machine (default ${DEFAULT_CONCURRENCY})
  --workdir <dir>         where working copies are made (default <out without .jsonl>.work)
  --queue <url>           redis://host:port/name: queue the tasks for \`harness worker\`s instead
  --provider, --model, --base-url, --api, --thinking, --max-turns
                          for every task (a task's own provider, model, maxTurns win)
Tasks run with --yes: every tool call is approved. Run batches where that is safe.
`;

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === "report") return runReport(argv.slice(1));
  let flags;
  let tasksPath: string;
  let target: QueueTarget | undefined;
  try {
    const parsed = parseFlags(argv, ["out", "concurrency", "workdir", "queue", ...PROVIDER_FLAGS, "help"], {
      positionals: true,
    });
    flags = parsed.flags;
    if (flags.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new Error("give one tasks file");
    tasksPath = parsed.positionals[0];
    target = flags.queue === undefined ? undefined : parseQueueUrl(flags.queue);
  } catch (error) {
    process.stderr.write(`harness: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const concurrency = flags.concurrency ?? DEFAULT_CONCURRENCY;
  const defaults: TaskDefaults = {
    provider: flags.provider,
    model: flags.model,
    baseUrl: flags["base-url"],
    api: flags.api && wireApiName(flags.api),
    thinking: flags.thinking === undefined ? undefined : String(flags.thinking),
    maxTurns: flags["max-turns"],
  };

  let tasks;
  try {
    tasks = readTasks(tasksPath);
  } catch (error) {
    if (!(error instanceof TaskFileError)) throw error;
    process.stderr.write(`harness: ${error.message}\n`);
    return 2;
  }
  const outPath = resolve(flags.out ?? "results.jsonl");
  const finished = new Set(readResults(outPath).map((result) => result.id));
  const pending = tasks.filter((task) => !finished.has(task.id));
  const progress = new BatchProgress(process.stderr, tasks.length, tasks.length - pending.length);
  if (finished.size > 0)
    progress.note(
      `${tasks.length - pending.length} of ${tasks.length} tasks already have results in ${outPath}; running the other ${pending.length}`,
    );

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
  const writer = new ResultsWriter(outPath);
  try {
    if (target) {
      const { runQueueBatch } = await import("../batch/queue-batch.ts");
      await runQueueBatch({ target, tasks: pending, defaults, writer, progress, signal: controller.signal });
    } else {
      const workRoot = resolve(flags.workdir ?? `${outPath.replace(/\.jsonl$/, "")}.work`);
      const runOptions = { command: currentHarnessCommand(), defaults, workRoot, env: process.env };
      await runLocalBatch({
        tasks: pending,
        concurrency,
        run: runOptions,
        writer,
        progress,
        signal: controller.signal,
        rateLimitBackoffMs: rateLimitBackoffFrom(process.env),
      });
    }
  } catch (error) {
    if (!(error instanceof QueueUrlError)) throw error;
    progress.close();
    process.stderr.write(`harness: ${error.message}\n`);
    return 1;
  } finally {
    writer.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  progress.close();
  const ids = new Set(tasks.map((task) => task.id));
  const summary = summarize(latestResults(readResults(outPath).filter((result) => ids.has(result.id))));
  const counts = Object.entries(summary.byStatus)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  process.stderr.write(
    `${summary.tasks} of ${tasks.length} tasks have results (${counts.join(", ") || "none"}) in ${outPath}\n`,
  );
  return controller.signal.aborted ? 130 : 0;
}

const REPORT_USAGE = "Usage: harness batch report <results.jsonl> [--html report.html]\n";

async function runReport(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseFlags(argv, ["html", "help"], { positionals: true });
    if (parsed.flags.help) {
      process.stdout.write(REPORT_USAGE);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new Error("give one results file");
  } catch (error) {
    process.stderr.write(`harness: ${(error as Error).message}\n${REPORT_USAGE}`);
    return 2;
  }
  const path = resolve(parsed.positionals[0]);
  const results = latestResults(readResults(path));
  if (results.length === 0) {
    process.stderr.write(`harness: ${path} has no results (is it the --out file of a batch?)\n`);
    return 2;
  }
  process.stdout.write(formatSummary(summarize(results)));
  if (parsed.flags.html) {
    const htmlPath = resolve(parsed.flags.html);
    writeFileSync(htmlPath, reportHtml(results, `batch report: ${basename(path)}`));
    process.stderr.write(`report: ${htmlPath}\n`);
  }
  return 0;
}
