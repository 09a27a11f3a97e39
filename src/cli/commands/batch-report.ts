// `harness batch report a.jsonl [b.jsonl ...] [--html report.html]`: each run in the files summed
// up, and (for two runs or more) their tasks side by side, in the terminal and as a page.
import { writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parseFlags } from "../cli-args.ts";
import { formatRunHeading, formatSideBySide, runsOf } from "../../batch/batch-compare.ts";
import { formatSummary } from "../../batch/batch-summary.ts";
import { reportHtml } from "../../batch/report-html.ts";
import { readResults } from "../../batch/results-file.ts";

const REPORT_USAGE = "Usage: harness batch report <results.jsonl> [<results.jsonl> ...] [--html report.html]\n";

/** The flags `harness batch report` takes (test/cli-help-flags.test.ts: each one is in its help). */
export const REPORT_FLAGS = ["html", "help"] as const;

export async function runReport(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseFlags(argv, REPORT_FLAGS, { positionals: true });
    if (parsed.flags.help) {
      process.stdout.write(REPORT_USAGE);
      return 0;
    }
    if (parsed.positionals.length === 0) throw new Error("give one results file or more");
  } catch (error) {
    process.stderr.write(`harness: ${(error as Error).message}\n${REPORT_USAGE}`);
    return 2;
  }
  const files = parsed.positionals.map((file) => ({ path: resolve(file), results: readResults(resolve(file)) }));
  const empty = files.find((file) => file.results.length === 0);
  if (empty) {
    process.stderr.write(`harness: ${empty.path} has no results (is it the --out file of a batch?)\n`);
    return 2;
  }
  const runs = runsOf(files);
  const sections = runs.map((run) => `${formatRunHeading(run)}\n\n${formatSummary(run.summary)}`);
  process.stdout.write(sections.join("\n"));
  if (runs.length > 1)
    process.stdout.write(`\ntasks side by side (those not ok in every run first):\n${formatSideBySide(runs)}`);
  if (parsed.flags.html) {
    const htmlPath = resolve(parsed.flags.html);
    writeFileSync(htmlPath, reportHtml(runs, `batch report: ${files.map((file) => basename(file.path)).join(", ")}`));
    process.stderr.write(`report: ${htmlPath}\n`);
  }
  return 0;
}
