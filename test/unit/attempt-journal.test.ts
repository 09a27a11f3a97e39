// A batch killed while a best-of-N task ran: each run of the attempt left its own record, and the
// resumed run records the attempt once, with every run's spend (not only the first's).
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { AttemptFiles, newAttemptRecord, recordLostAttempts } from "../../src/batch/attempt-journal.ts";
import type { TaskResult } from "../../src/batch/task-result.ts";
import { tempDir } from "../support/helpers.ts";

test("every run of a lost best-of-N attempt is recorded, summed into the attempt's one crashed line", () => {
  const out = `${tempDir()}/results.jsonl`;
  const files = new AttemptFiles(out, "run-1");
  for (const copy of [1, 2, 3]) {
    const record = newAttemptRecord("t1", 1, "/nowhere");
    files.write({
      ...record,
      ...(copy > 1 ? { copy } : {}),
      calls: copy,
      spent: { usage: { input: 10 * copy, output: 5, cacheRead: 0, cacheWrite: 0 }, cost: 0.00002 * copy },
    });
  }
  // Another task's attempt that already has its line: only cleared.
  files.write({
    ...newAttemptRecord("t2", 1, "/nowhere"),
    calls: 1,
    spent: { usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }, cost: 0.00002 },
  });
  assert.equal(readdirSync(files.dir).length, 4, "a record per run");
  const appended: TaskResult[] = [];
  const written = recordLostAttempts(
    files,
    [{ id: "t2", attempt: 1, status: "ok" } as TaskResult],
    { runId: "run-1" },
    () => undefined,
    (line) => appended.push(line),
  );
  assert.deepEqual(written, appended);
  assert.deepEqual(
    appended.map((line) => [
      line.id,
      line.attempt,
      line.status,
      line.turns,
      line.tokens,
      Number(line.cost?.toFixed(6)),
    ]),
    [["t1", 1, "crashed", 6, { input: 60, output: 15, cached: 0 }, 0.00012]],
  );
  assert.deepEqual(readdirSync(files.dir), [], "every record cleared");
});
