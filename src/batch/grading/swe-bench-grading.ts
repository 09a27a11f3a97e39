// Grading as SWE-bench's evaluation does it: the instance's FAIL_TO_PASS and PASS_TO_PASS tests
// looked up in the test run's per-test statuses, and its report in SWE-bench's shape. Sources,
// princeton-nlp/SWE-bench (now SWE-bench/SWE-bench): `swebench/metrics/constants.py` (the test
// statuses PASSED, FAILED, SKIPPED, ERROR; RESOLVED_NO, RESOLVED_PARTIAL, RESOLVED_FULL), and
// `swebench/harness/grading.py` and `log_parsers.py` (parse_log_pytest, test_passed /
// test_failed, get_resolution_status, the report.json written per instance).

import { logParserFor, parsePytestLog, type TestStatus } from "./log-parsers.ts";

/** What SWE-bench's evaluation calls an instance: all FAIL_TO_PASS and PASS_TO_PASS pass, some FAIL_TO_PASS do, or not. */
type Resolution = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";

type Outcome = { success: string[]; failure: string[] };

/** SWE-bench's test_passed: present and PASSED or XFAIL; test_failed: missing, FAILED or ERROR (a SKIPPED test is neither). */
function sorted(tests: string[], statuses: Map<string, TestStatus>): Outcome {
  const outcome: Outcome = { success: [], failure: [] };
  for (const test of tests) {
    const status = statuses.get(test);
    if (status === "PASSED" || status === "XFAIL") outcome.success.push(test);
    else if (status === undefined || status === "FAILED" || status === "ERROR") outcome.failure.push(test);
  }
  return outcome;
}

/** The share of a category that passed; 1 for an empty one (compute_fail_to_pass / compute_pass_to_pass). */
function passRate({ success, failure }: Outcome): number {
  const total = success.length + failure.length;
  return total === 0 ? 1 : success.length / total;
}

/** get_resolution_status: FULL when both rates are 1, PARTIAL when some FAIL_TO_PASS pass and every PASS_TO_PASS does, else NO. */
export function resolutionOf(failToPass: Outcome, passToPass: Outcome): Resolution {
  const f2p = passRate(failToPass);
  const p2p = passRate(passToPass);
  if (f2p === 1 && p2p === 1) return "RESOLVED_FULL";
  if (f2p > 0 && f2p < 1 && p2p === 1) return "RESOLVED_PARTIAL";
  return "RESOLVED_NO";
}

/** The instance's tests, as the dataset holds them: a list, or a JSON string of one. */
export function testList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string"))
    throw new Error("FAIL_TO_PASS and PASS_TO_PASS must be lists of test ids (or JSON text of one)");
  return parsed;
}

/** One instance's entry of SWE-bench's report.json: `{instance_id: {...}}` with these fields. */
export function instanceReport(
  instanceId: string,
  run: {
    patch: string | null;
    patchApplied: boolean;
    log: string;
    failToPass: string[];
    passToPass: string[];
    /** The instance's repository, whose log parser reads `log` (log-parsers.ts); pytest's when absent. */
    repo?: string;
  },
) {
  const statuses = run.repo ? logParserFor(run.repo)(run.log) : parsePytestLog(run.log);
  const FAIL_TO_PASS = sorted(run.failToPass, statuses);
  const PASS_TO_PASS = sorted(run.passToPass, statuses);
  const resolution = run.patchApplied ? resolutionOf(FAIL_TO_PASS, PASS_TO_PASS) : "RESOLVED_NO";
  return {
    resolution,
    report: {
      [instanceId]: {
        patch_is_None: run.patch === null,
        patch_exists: Boolean(run.patch),
        patch_successfully_applied: run.patchApplied,
        resolved: resolution === "RESOLVED_FULL",
        tests_status: {
          FAIL_TO_PASS,
          PASS_TO_PASS,
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    },
  };
}
