// `harness batch report a.jsonl [b.jsonl ...] [--html report.html]`: each run in the files summed
// up, and (for two runs or more) their tasks side by side, in the terminal and as a page.

import { writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { formatRunHeading, formatSideBySide, runsOf } from "../../batch/batch-compare.ts";
import { formatPair, pairsOf } from "../../batch/batch-pairs.ts";
import { formatSummary } from "../../batch/batch-summary.ts";
import { reportHtml } from "../../batch/report-html.ts";
import { reportJson } from "../../batch/report-json.ts";
import { ResultsFileError, readResults } from "../../batch/results-file.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { parseFlags } from "../cli-args.ts";
import { writeReportFiles } from "./batch-report-files.ts";

const REPORT_USAGE = `Usage: harness batch report <results.jsonl> [<results.jsonl> ...] [--html report.html] [--json]
  --html <file>  also write the report as a page, with each task's diff and session beside it
  --json         print the figures as JSON instead of text (shape: docs/batch.md)
`;

/** The flags `harness batch report` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const REPORT_FLAGS = ["html", "json", "help"] as const;

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
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n${REPORT_USAGE}`);
    return 2;
  }
  let files;
  try {
    files = parsed.positionals.map((file) => ({ path: resolve(file), results: readResults(resolve(file)) }));
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 2;
  }
  const empty = files.find((file) => file.results.length === 0);
  if (empty) {
    process.stderr.write(
      `harness: ${showControlChars(empty.path)} has no results (is it the --out file of a batch?)\n`,
    );
    return 2;
  }
  const runs = runsOf(files);
  const sections = runs.map((run) => `${formatRunHeading(run)}\n\n${formatSummary(run.summary)}`);
  // Every id, model, error and status in the report is what the results file says, and the file
  // may be someone else's: the report goes out with its control characters shown (OSC 52, OSC 8).
  const pairs = pairsOf(runs);
  const paired = pairs.map((pair) => `\n${formatPair(pair)}`).join("");
  const sideBySide =
    runs.length > 1 ? `\ntasks side by side (those not ok in every run first):\n${formatSideBySide(runs)}` : "";
  // JSON is escaped in reportJson; the text shows control characters (see above).
  if (parsed.flags.json) process.stdout.write(reportJson(runs, pairs));
  else process.stdout.write(showControlChars(`${sections.join("\n")}${paired}${sideBySide}`));
  if (parsed.flags.html) {
    const htmlPath = resolve(parsed.flags.html);
    const written = writeReportFiles(runs, htmlPath);
    const title = `batch report: ${files.map((file) => basename(file.path)).join(", ")}`;
    writeFileSync(htmlPath, reportHtml(runs, pairs, title, written.linksOf));
    process.stderr.write(
      `report: ${showControlChars(htmlPath)} (${written.diffs} diffs, ${written.sessions} sessions beside it)\n`,
    );
    if (written.sessionsMissing > 0)
      process.stderr.write(
        `report: ${written.sessionsMissing} tasks' sessions are not on this machine (or not a batch task's): no link to them\n`,
      );
  }
  return 0;
}
