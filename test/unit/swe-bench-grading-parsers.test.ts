// SWE-bench's per-repository test log parsers (log-parsers.ts), on logs written here in the real
// shapes: Django's runner / unittest's verbose output (docs.djangoproject.com "Running the test
// suite"; docs.python.org unittest `-v`), SymPy's bin/test output, and later pytest's coloured
// `-rA` summary (the shapes SWE-bench's parse_log_django, parse_log_sympy, parse_log_pytest_v2 read).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { logParserFor } from "../../src/batch/grading/log-parsers.ts";
import { tempDir } from "../support/helpers.ts";

const parseDjango = logParserFor("django/django");
const parseSympy = logParserFor("sympy/sympy");
const parsePytestV2 = logParserFor("sphinx-doc/sphinx");

test("Django's runner: ok, FAIL, ERROR, skipped, and an ok after the test's own output", () => {
  const log = [
    "test_add (calc.tests.CalcTests.test_add) ... ok",
    "test_sub (calc.tests.CalcTests.test_sub) ... FAIL",
    "test_div (calc.tests.CalcTests.test_div) ... ERROR",
    "test_mod (calc.tests.CalcTests.test_mod) ... skipped 'not on this platform'",
    "test_noisy (calc.tests.CalcTests.test_noisy) ... printed by the test",
    "ok",
    "",
    "======================================================================",
    "FAIL: test_sub (calc.tests.CalcTests.test_sub)",
  ].join("\n");
  const statuses = parseDjango(log);
  assert.equal(statuses.get("test_add (calc.tests.CalcTests.test_add)"), "PASSED");
  assert.equal(statuses.get("test_sub (calc.tests.CalcTests.test_sub)"), "FAILED");
  assert.equal(statuses.get("test_div (calc.tests.CalcTests.test_div)"), "ERROR");
  assert.equal(statuses.get("test_mod (calc.tests.CalcTests.test_mod)"), "SKIPPED");
  assert.equal(statuses.get("test_noisy (calc.tests.CalcTests.test_noisy)"), "PASSED");
  assert.equal(statuses.get("test_sub"), "FAILED", "the FAIL: header, keyed by its second word as SWE-bench does");
});

test("SymPy's bin/test: ok, F and E lines, and a failure's header", () => {
  const log = [
    "sympy/core/tests/test_basic.py[3] ",
    "test_add ok",
    "test_mul F",
    "test_pow E",
    "________________________________ sympy/core/tests/test_basic.py:test_mul _________________________________",
  ].join("\n");
  const statuses = parseSympy(log);
  assert.equal(statuses.get("test_add"), "PASSED");
  assert.equal(statuses.get("test_mul"), "FAILED");
  assert.equal(statuses.get("test_pow"), "ERROR");
  assert.equal(statuses.get("sympy/core/tests/test_basic.py:test_mul"), "FAILED");
});

test("later pytest: colour codes out, FAILED's reason dropped, an older status at the end", () => {
  const log = [
    "\u001b[32mPASSED\u001b[0m tests/test_a.py::test_one",
    "\u001b[31mFAILED\u001b[0m tests/test_a.py::test_two - AssertionError: 1 != 2",
    "tests/test_b.py::test_three PASSED",
  ].join("\n");
  const statuses = parsePytestV2(log);
  assert.equal(statuses.get("tests/test_a.py::test_one"), "PASSED");
  assert.equal(statuses.get("tests/test_a.py::test_two"), "FAILED");
  assert.equal(statuses.get("tests/test_b.py::test_three"), "PASSED");
});

test("a repository SWE-bench maps no parser to is read as pytest -rA; one whose parser harness lacks is an error naming it", () => {
  assert.deepEqual(
    [...logParserFor("acme/widget")("PASSED tests/t.py::test_a\nFAILED tests/t.py::test_b - boom")],
    [
      ["tests/t.py::test_a", "PASSED"],
      ["tests/t.py::test_b", "FAILED"],
    ],
  );
  assert.deepEqual([...logParserFor("django/django")("PASSED tests/t.py::test_a")], [], "django's is not pytest's");
  assert.throws(() => logParserFor("mwaskom/seaborn"), /grading mwaskom\/seaborn: .*SWE-bench's parse_log_seaborn/);
});

const noPython =
  spawnSync("python3", ["--version"], { stdio: "ignore" }).status === 0
    ? false
    : "python3 not installed (apt-get install python3)";

test("a real `python3 -m unittest -v` run, read by Django's parser (the same runner output)", {
  skip: noPython,
}, () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, "test_calc.py"),
    [
      "import unittest",
      "class Calc(unittest.TestCase):",
      "    def test_add(self): self.assertEqual(1 + 1, 2)",
      "    def test_sub(self): self.assertEqual(1 - 1, 1)",
      "    def test_div(self): 1 / 0",
      "    @unittest.skip('not here')",
      "    def test_mod(self): pass",
      "",
    ].join("\n"),
  );
  const run = spawnSync("python3", ["-m", "unittest", "-v", "test_calc"], { cwd: dir, encoding: "utf8" });
  const statuses = logParserFor("django/django")(`${run.stdout}${run.stderr}`);
  // unittest names a test `test_add (test_calc.Calc.test_add)` from Python 3.11, `test_add (test_calc.Calc)` before.
  const statusOf = (name: string) => [...statuses].find(([test]) => test.startsWith(`${name} (test_calc.Calc`))?.[1];
  assert.deepEqual(
    ["test_add", "test_sub", "test_div", "test_mod"].map(statusOf),
    ["PASSED", "FAILED", "ERROR", "SKIPPED"],
    run.stderr,
  );
});
