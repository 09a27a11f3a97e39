// A batch task with `attempts` (best of N): three attempts at once, each in its own clone, each
// tested; the result line lists them all, counts each one's spend once, and names the pick.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeRepo, pricedEnv, readLines } from "../support/batch-files.ts";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** What each attempt writes, in the order their first requests arrive: one fails the test, two pass. */
const WRITES = ["bad\n", "good\nand more\nand more\n", "good\n"];

test("attempts: 3 runs three tested clones, lists each, sums their spend, picks the smallest passing one", async () => {
  let firsts = 0;
  const step: ScriptStep = (request: RecordedRequest) => {
    const answered = request.body.messages.some((message: { role: string }) => message.role === "tool");
    if (answered) return { reply: { text: "written" } };
    const content = WRITES[firsts++ % WRITES.length];
    return { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "f.txt", content } }] } };
  };
  const fake = await serve(Array.from({ length: 6 }, () => step));
  const dir = tempDir();
  makeRepo(dir);
  const task = { id: "fix", prompt: "make f.txt good", repo: "repo", test: "grep -qx good f.txt", attempts: 3 };
  writeFileSync(join(dir, "tasks.jsonl"), `${JSON.stringify(task)}\n`);
  const run = await runCli(["batch", "tasks.jsonl", "--out", "results.jsonl", ...fakeFlags(fake)], {
    env: pricedEnv(),
    cwd: dir,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fake.requests.length, 6, "two model calls per attempt");
  const [line, ...others] = readLines(join(dir, "results.jsonl"));
  assert.equal(others.length, 0, "one line for the task");
  assert.ok(line?.attempts, "the line lists the attempts");
  const attempts = line.attempts;
  assert.equal(attempts.length, 3);
  const byContent = new Map(
    attempts.map((attempt) => [readFileSync(join(attempt.workdir as string, "f.txt"), "utf8"), attempt]),
  );
  assert.deepEqual([...byContent.keys()].sort(), [...WRITES].sort(), "each attempt in a clone of its own");
  assert.deepEqual(
    WRITES.map((content) => [byContent.get(content)?.status, byContent.get(content)?.testExitCode]),
    [
      ["failed", 1],
      ["ok", 0],
      ["ok", 0],
    ],
  );
  const picked = byContent.get("good\n");
  assert.equal(line.picked, attempts.indexOf(picked as (typeof attempts)[number]) + 1, "the smallest passing change");
  assert.equal(line.status, "ok");
  assert.equal(line.workdir, picked?.workdir);
  assert.match(line.diff ?? "", /^\+good$/m);
  assert.doesNotMatch(line.diff ?? "", /and more/);
  // Each attempt's spend counted once: the line's tokens and cost are the attempts' sums.
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  assert.ok(attempts.every((attempt) => attempt.tokens.input > 0 && (attempt.cost ?? 0) > 0));
  assert.equal(line.tokens.input, sum(attempts.map((attempt) => attempt.tokens.input)));
  assert.equal(line.tokens.output, sum(attempts.map((attempt) => attempt.tokens.output)));
  assert.ok(Math.abs((line.cost ?? 0) - sum(attempts.map((attempt) => attempt.cost ?? 0))) < 1e-12);
  assert.equal(new Set(attempts.map((attempt) => attempt.sessionId)).size, 3, "a session each");

  // Attempts sharing one `cwd` would edit each other's files: the batch refuses before it starts.
  writeFileSync(join(dir, "tasks.jsonl"), `${JSON.stringify({ id: "shared", prompt: "x", cwd: ".", attempts: 2 })}\n`);
  const refused = await runCli(["batch", "tasks.jsonl", "--out", "other.jsonl", ...fakeFlags(fake)], {
    env: pricedEnv(),
    cwd: dir,
  });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /tasks\.jsonl:1: attempts: more than one attempt needs repo/);
  assert.equal(fake.requests.length, 6, "nothing ran");
});
