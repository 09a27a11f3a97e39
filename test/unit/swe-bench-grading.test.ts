// Grading as SWE-bench does (src/batch/grading/): pytest's -rA summary parsed as parse_log_pytest
// does, RESOLVED_FULL / PARTIAL / NO as get_resolution_status decides, and the graded test step on
// a tiny python repository with real git and pytest: the test_patch applied, the report.json
// written in SWE-bench's shape, and the test patch taken out again. Skips without python3's pytest.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { gradedTest } from "../../src/batch/grading/graded-test.ts";
import { parsePytestLog } from "../../src/batch/grading/log-parsers.ts";
import { resolutionOf, testList } from "../../src/batch/grading/swe-bench-grading.ts";
import { tempDir } from "../support/helpers.ts";

const noPytest =
  spawnSync("python3", ["-c", "import pytest"], { stdio: "ignore" }).status === 0
    ? false
    : "python3 with pytest not installed (apt-get install python3-pytest)";

test("pytest's summary lines are read per test, and the resolution follows SWE-bench's rule", () => {
  const log = [
    "============ short test summary info ============",
    "PASSED tests/test_a.py::test_one",
    "FAILED tests/test_a.py::test_two - AssertionError: assert 1 == 2",
    "ERROR tests/test_b.py::test_three - ImportError",
    "SKIPPED [1] tests/test_b.py:4: no network",
    "XFAIL tests/test_b.py::test_four",
    "  PASSED not at the start of a line",
  ].join("\n");
  const statuses = parsePytestLog(log);
  assert.equal(statuses.get("tests/test_a.py::test_one"), "PASSED");
  assert.equal(statuses.get("tests/test_a.py::test_two"), "FAILED");
  assert.equal(statuses.get("tests/test_b.py::test_three"), "ERROR");
  assert.equal(statuses.get("tests/test_b.py::test_four"), "XFAIL");
  assert.equal(statuses.has("not"), false);
  const all = { success: ["a", "b"], failure: [] };
  const half = { success: ["a"], failure: ["b"] };
  const none = { success: [], failure: ["a"] };
  assert.equal(resolutionOf(all, all), "RESOLVED_FULL");
  assert.equal(resolutionOf(half, all), "RESOLVED_PARTIAL");
  assert.equal(resolutionOf(half, half), "RESOLVED_NO");
  assert.equal(resolutionOf(none, all), "RESOLVED_NO");
  assert.equal(resolutionOf({ success: [], failure: [] }, all), "RESOLVED_FULL", "an empty list counts as all passed");
  assert.deepEqual(testList('["x::y"]'), ["x::y"]);
  assert.throws(() => testList('{"x": 1}'), /lists of test ids/);
});

test("a SWE-bench instance is graded by its own tests on a real repository", { skip: noPytest }, async () => {
  const dir = join(tempDir(), "instance");
  mkdirSync(join(dir, "tests"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });
  git("init", "-q");
  writeFileSync(join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
  writeFileSync(join(dir, "tests", "__init__.py"), "");
  git("add", ".");
  git("commit", "-qm", "buggy add");
  // The instance's test_patch: the test that fails before the fix and one that passes either way.
  writeFileSync(
    join(dir, "tests", "test_calc.py"),
    "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
  );
  git("add", "-N", "tests/test_calc.py");
  const testPatch = git("diff");
  git("rm", "-q", "--cached", "tests/test_calc.py");
  execFileSync("rm", [join(dir, "tests", "test_calc.py")]);
  const task = {
    id: "calc__calc-1",
    test: "python3 -m pytest -rA -p no:cacheprovider tests/test_calc.py",
    grading: { failToPass: ["tests/test_calc.py::test_add"], passToPass: ["tests/test_calc.py::test_zero"], testPatch },
  };
  const sandbox = { env: { PATH: process.env.PATH ?? "", HOME: dir } };
  const report = () => JSON.parse(readFileSync(`${dir}.report.json`, "utf8"))[task.id];

  const unfixed = await gradedTest(task, dir, sandbox, new AbortController().signal);
  assert.equal(unfixed.exitCode, 1);
  assert.match(unfixed.output, /^RESOLVED_NO \(FAIL_TO_PASS 0\/1, PASS_TO_PASS 1\/1/);
  assert.deepEqual(report().tests_status.FAIL_TO_PASS, { success: [], failure: ["tests/test_calc.py::test_add"] });
  assert.equal(report().patch_exists, false);
  assert.equal(existsSync(join(dir, "tests", "test_calc.py")), false, "the test patch is taken out again");

  writeFileSync(join(dir, "calc.py"), "def add(a, b):\n    return a + b\n");
  const fixed = await gradedTest(task, dir, sandbox, new AbortController().signal);
  assert.equal(fixed.exitCode, 0, fixed.output);
  assert.match(fixed.output, /^RESOLVED_FULL/);
  assert.deepEqual(report(), {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: true,
    resolved: true,
    tests_status: {
      FAIL_TO_PASS: { success: ["tests/test_calc.py::test_add"], failure: [] },
      PASS_TO_PASS: { success: ["tests/test_calc.py::test_zero"], failure: [] },
      FAIL_TO_FAIL: { success: [], failure: [] },
      PASS_TO_FAIL: { success: [], failure: [] },
    },
  });
  assert.equal(git("status", "--porcelain").trim(), "M calc.py", "only the agent's change is left");
});
