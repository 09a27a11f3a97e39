// Cost limits in queue mode, with two workers against a real redis-server: a task's `maxCost`
// ends it on whichever worker runs it, and the batch's `--max-cost` holds across workers: the
// model call that reaches it on one worker stops the task running on the other at once (it is
// waiting on a call that would never come back), and no further task starts anywhere.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pricedEnv, promptOf, readLines } from "../support/batch-files.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";

/** A task's own time limit: only a broken budget lets a task run this long (the test then fails on its status). */
const LIVENESS_TIMEOUT_S = 100;

const serve = fakeServerPerTest();

test("queue mode, two workers: a task's maxCost ends it; the batch's --max-cost stops the tasks on both workers and starts no more", {
  skip: needs("redis-server"),
}, async () => {
  const { port } = await startRedis();
  const queueUrl = `redis://127.0.0.1:${port}/cost-test`;
  // The --max-cost tasks ("spend n"): each first call waits until two tasks are calling (one on
  // each worker), then asks for a command; of the second calls the first asks again (the third
  // call in all: $0.00006, past the $0.00005 cap) and the other is never answered.
  let bothCalling: () => void = () => {};
  const calling = new Promise<void>((resolve) => (bothCalling = resolve));
  const firstCalls = new Set<string>();
  let secondCalls = 0;
  const command = { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
  // After the capped run: every call answers, so the run with a higher cap finishes.
  let isGenerous = false;
  const step: ScriptStep = async (request) => {
    const prompt = promptOf(request);
    if (isGenerous) return { reply: { text: `answer to ${prompt}` } };
    if (prompt === "capped") return command;
    if (!prompt.startsWith("spend ")) return { reply: { text: `answer to ${prompt}` } };
    if (!request.body.messages.some((message: { role: string }) => message.role === "tool")) {
      firstCalls.add(prompt);
      if (firstCalls.size === 2) bothCalling();
      await calling;
      return command;
    }
    return ++secondCalls === 1 ? command : { hang: true };
  };
  const fake = await serve(Array.from({ length: 40 }, () => step));
  const workers = [1, 2].map(() => {
    let child: ChildProcess | undefined;
    const done = runCli(["worker", "--queue", queueUrl, "--concurrency", "1", ...fakeFlags(fake)], {
      env: pricedEnv(),
      onSpawn: (spawned) => (child = spawned),
    });
    return { done, stop: () => child?.kill("SIGTERM") };
  });
  try {
    const dir = tempDir();
    const tasks = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
    writeFileSync(
      join(dir, "capped.jsonl"),
      tasks([
        { id: "capped", prompt: "capped", maxCost: 0.00001 },
        { id: "plain", prompt: "plain" },
      ]),
    );
    const capped = await runCli(
      ["batch", "capped.jsonl", "--queue", queueUrl, "--out", "capped-results.jsonl", "--model", "fake-model"],
      { env: pricedEnv(), cwd: dir },
    );
    assert.equal(capped.code, 0, capped.stderr);
    assert.deepEqual(
      readLines(join(dir, "capped-results.jsonl"))
        .map((line) => [line.id, line.status, line.error ?? "", line.cost])
        .sort(),
      [
        ["capped", "max_cost", "maxCost: spent $0.00002 of $0.00001", 0.00002],
        ["plain", "ok", "", 0.00002],
      ],
    );

    writeFileSync(
      join(dir, "spend.jsonl"),
      tasks([1, 2, 3, 4].map((n) => ({ id: `s${n}`, prompt: `spend ${n}`, timeout: LIVENESS_TIMEOUT_S }))),
    );
    const spend = await runCli(
      ["batch", "spend.jsonl", "--queue", queueUrl, "--out", "spend-results.jsonl", "--max-cost", "0.00005"],
      { env: pricedEnv(), cwd: dir },
    );
    assert.equal(spend.code, 1, spend.stderr);
    assert.match(
      spend.stderr,
      /--max-cost \$0\.00005 reached \(\$0\.0001 spent\): 2 tasks not run, 2 stopped \(capped\)/,
    );
    const lines = readLines(join(dir, "spend-results.jsonl"));
    assert.deepEqual(
      lines.map((line) => [line.id, line.status, line.error]).sort(),
      [
        ["s1", "capped", "the batch's --max-cost $0.00005 was reached"],
        ["s2", "capped", "the batch's --max-cost $0.00005 was reached"],
      ],
      "both running tasks stopped, the one waiting on a call included; no other started",
    );
    // Three calls of $0.00002, and the call in flight of the task stopped while it waited, when its
    // request had gone out before the cap struck (timing decides): estimated from its session file
    // at 23 tokens in, $0.000023.
    const inFlight = lines.map((line) => line.inFlight).filter(Boolean);
    for (const call of inFlight)
      assert.deepEqual(call, { tokens: { input: 23, output: 0, cached: 0 }, cost: 0.000023, estimated: true });
    assert.equal(
      Number(lines.reduce((sum, line) => sum + (line.cost ?? 0), 0).toFixed(6)),
      Number((0.00006 + inFlight.length * 0.000023).toFixed(6)),
    );
    assert.deepEqual(
      [...new Set(fake.requests.map(promptOf).filter((prompt) => prompt.startsWith("spend ")))].sort(),
      ["spend 1", "spend 2"],
      "no model call for the tasks not started",
    );

    // The cap raised: the same run goes on; the capped tasks run again (attempt 2), the others for the first time.
    isGenerous = true;
    const raised = await runCli(
      ["batch", "spend.jsonl", "--queue", queueUrl, "--out", "spend-results.jsonl", "--max-cost", "1"],
      { env: pricedEnv(), cwd: dir },
    );
    assert.equal(raised.code, 0, raised.stderr);
    assert.match(raised.stderr, /resuming run \S+: 0 of 4 tasks already have results/);
    assert.deepEqual(
      readLines(join(dir, "spend-results.jsonl"))
        .slice(2)
        .map((line) => [line.id, line.status, line.attempt])
        .sort(),
      [
        ["s1", "ok", 2],
        ["s2", "ok", 2],
        ["s3", "ok", 1],
        ["s4", "ok", 1],
      ],
    );
  } finally {
    for (const worker of workers) worker.stop();
    await Promise.all(workers.map((worker) => worker.done));
  }
});
