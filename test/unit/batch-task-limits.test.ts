// A task's timeout longer than Node's timers take (2^31-1 ms) would fire at once: refused when the
// tasks file is read, one line naming the file, line and limit, for a task and a SWE-bench line alike.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readTasks, TaskFileError } from "../../src/batch/batch-task.ts";
import { tempDir } from "../support/helpers.ts";

test("a timeout past what Node's timers take is a usage error; the longest one is taken", () => {
  const dir = tempDir();
  const path = join(dir, "tasks.jsonl");
  writeFileSync(path, `${JSON.stringify({ id: "a", prompt: "x", timeout: 2_200_000 })}\n`);
  assert.throws(
    () => readTasks(path),
    (error: Error) =>
      error instanceof TaskFileError &&
      /tasks\.jsonl:1: timeout: at most 2147483 seconds \(about 24\.8 days: Node's timers take no longer\)$/.test(
        error.message,
      ) &&
      !error.message.includes("\n"),
  );
  const instance = { instance_id: "o__r-1", repo: "o/r", base_commit: "abc", problem_statement: "fix", timeout: 3e6 };
  writeFileSync(path, `${JSON.stringify(instance)}\n`);
  assert.throws(() => readTasks(path), /tasks\.jsonl:1: SWE-bench instance: .*at most 2147483 seconds/);
  writeFileSync(path, `${JSON.stringify({ id: "a", prompt: "x", timeout: 2_147_483 })}\n`);
  assert.equal(readTasks(path)[0].timeout, 2_147_483);
});
