// A SWE-bench instance's test step (docs/batch.md#grading-as-swe-bench-does): the instance's
// `test_patch` applied to the agent's working copy, its test command run in the task's sandbox
// (and environment), FAIL_TO_PASS and PASS_TO_PASS looked up in pytest's output, the report
// written beside the working copy in SWE-bench's report.json shape, and the test patch taken out
// again so the attempt's diff (its prediction) is the agent's change alone.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { GroupTracker } from "../harness-child.ts";
import { type CommandOutcome, type CommandSandbox, runShellCommand } from "../shell-command.ts";
import { instanceReport } from "./swe-bench-grading.ts";

/** What a task line carries to be graded (a SWE-bench line's FAIL_TO_PASS, PASS_TO_PASS, test_patch). */
interface Grading {
  failToPass: string[];
  passToPass: string[];
  testPatch?: string;
}

/** pytest's output kept whole up to this much (its summary lines are at the end). */
const LOG_CHARS = 4 * 1024 * 1024;

/** git on the working copy itself, as the batch's diff runs it: hooks off, nothing of the user's config. */
function gitApply(dir: string, patch: string, reverse: boolean): boolean {
  try {
    execFileSync("git", ["-c", "core.hooksPath=/dev/null", "apply", ...(reverse ? ["-R"] : []), "-"], {
      cwd: dir,
      input: patch,
      stdio: ["pipe", "ignore", "ignore"],
      timeout: 60_000,
    });
    return true;
  } catch {
    return false;
  }
}

/** Runs the graded test; exit code 0 only for RESOLVED_FULL, the output naming the resolution. */
export async function gradedTest(
  task: { id: string; test?: string; grading?: Grading },
  dir: string,
  sandbox: CommandSandbox,
  signal: AbortSignal,
  groups?: GroupTracker,
): Promise<CommandOutcome> {
  const grading = task.grading as Grading;
  // What the agent changed (before the test patch goes in): SWE-bench's patch_exists.
  const changed = execFileSync("git", ["status", "--porcelain"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  }).trim();
  // No __pycache__ left in the working copy: it would be part of the attempt's diff (its prediction).
  const quiet = { ...sandbox, env: { ...sandbox.env, PYTHONDONTWRITEBYTECODE: "1" } };
  const patchApplied = grading.testPatch ? gitApply(dir, grading.testPatch, false) : true;
  const run = patchApplied
    ? await runShellCommand(task.test ?? "true", dir, quiet, signal, { groups, outputChars: LOG_CHARS })
    : { exitCode: null, output: "", timedOut: false };
  if (grading.testPatch && patchApplied) gitApply(dir, grading.testPatch, true);
  const { resolution, report } = instanceReport(task.id, { patch: changed, patchApplied, log: run.output, ...grading });
  writeFileSync(`${dir}.report.json`, `${JSON.stringify(report, null, 2)}\n`);
  const status = report[task.id].tests_status;
  const counts = `FAIL_TO_PASS ${status.FAIL_TO_PASS.success.length}/${grading.failToPass.length}, PASS_TO_PASS ${status.PASS_TO_PASS.success.length}/${grading.passToPass.length}`;
  const why = patchApplied ? counts : "the test_patch did not apply";
  return {
    exitCode: resolution === "RESOLVED_FULL" ? 0 : 1,
    output: `${resolution} (${why}; report ${dir}.report.json)`,
    timedOut: run.timedOut,
  };
}
