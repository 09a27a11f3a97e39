// `harness batch clean --queue`: on a real redis-server, one finished run and one whose batch is
// still waiting on its task (held by the fake LLM). The dry run names the finished run and removes
// nothing; the clean removes every key of the finished run and none of the live one, whose batch
// then ends normally; a second clean finds nothing; once the live run is finished, it goes too.
// A stranger's planted markers (unsigned, or a real run's signed marker copied under another
// run's id that covers the live run's jobs) make it remove nothing and do not crash it.
import assert from "node:assert/strict";
import { type ChildProcess, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { runsPathOf } from "../../src/batch/batch-run.ts";
import { pricedEnv, promptOf, readLines } from "../support/batch-files.ts";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { fakeFlags, runCli, tempDir } from "../support/helpers.ts";
import { startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";

/** Longest wait for the held request, so a broken queue fails the test rather than hanging it. */
const STEP_LIMIT_MS = 60_000;
const POLL_MS = 50;

let server: FakeLLM | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test("batch clean --queue: removes the finished run's keys only, keeps the live run's, refuses planted markers", {
  skip: needs("redis-server", "redis-cli"),
}, async () => {
  const { port } = await startRedis();
  const queueUrl = `redis://127.0.0.1:${port}/clean`;
  const redis = (...args: string[]) =>
    spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).stdout.trimEnd();
  const keys = () => redis("--scan", "--pattern", "bull:clean:*").split("\n").filter(Boolean).sort();

  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let isHeld = false;
  const step: ScriptStep = async (request) => {
    const prompt = promptOf(request);
    if (prompt === "live task") {
      isHeld = true;
      await gate;
    }
    return { reply: { text: `answer to ${prompt}` } };
  };
  server = await startFakeLLM(Array.from({ length: 4 }, () => step));
  const dir = tempDir();
  writeFileSync(join(dir, "done.jsonl"), `${JSON.stringify({ id: "done", prompt: "done task" })}\n`);
  writeFileSync(join(dir, "live.jsonl"), `${JSON.stringify({ id: "live", prompt: "live task" })}\n`);
  let workerChild: ChildProcess | undefined;
  const worker = runCli(["worker", "--queue", queueUrl, "--workdir", join(dir, "work"), ...fakeFlags(server)], {
    env: pricedEnv(),
    onSpawn: (child) => (workerChild = child),
  });
  const batchOf = (name: string) =>
    runCli(["batch", `${name}.jsonl`, "--queue", queueUrl, "--out", `${name}.results.jsonl`, "--model", "fake-model"], {
      cwd: dir,
      env: pricedEnv(),
    });
  const clean = async (...flags: string[]) => {
    const result = await runCli(["batch", "clean", "--queue", queueUrl, ...flags], { env: pricedEnv() });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  try {
    const finished = await batchOf("done");
    assert.equal(finished.code, 0, finished.stderr);
    const doneRun = readLines(join(dir, "done.results.jsonl"))[0]?.runId ?? "";
    const live = batchOf("live");
    const deadline = Date.now() + STEP_LIMIT_MS;
    while (!isHeld && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    assert.ok(isHeld, "the live task's model call arrived");
    const liveRun = (JSON.parse(readFileSync(runsPathOf(join(dir, "live.results.jsonl")), "utf8")) as { runId: string })
      .runId;
    const ofRun = (runId: string) => keys().filter((key) => key.includes(`:${runId}.`) || key.endsWith(`:${runId}`));
    const doneKeys = ofRun(doneRun);
    assert.ok(doneKeys.includes(`bull:clean:harness-finished:${doneRun}`), doneKeys.join(" "));
    assert.ok(
      doneKeys.some((key) => key.startsWith(`bull:clean:harness-done:${doneRun}.`)),
      doneKeys.join(" "),
    );
    // Only the runs' keys are compared: BullMQ's own (its rate limiter's) come and go by themselves.
    const runKeys = () => [...ofRun(doneRun), ...ofRun(liveRun)];
    const before = runKeys();

    const dry = await clean("--dry-run");
    assert.match(dry, new RegExp(`would remove run ${doneRun} \\(1 job, ${doneKeys.length} keys, [1-9]\\d* bytes\\)`));
    assert.match(dry, new RegExp(`kept run ${liveRun}: its batch is running`));
    assert.match(dry, /nothing was removed \(--dry-run\)/);
    assert.deepEqual(runKeys(), before, "the dry run removed nothing");

    // A stranger plants markers: the finished run's signed one copied under a run id whose prefix
    // covers the live run's job ids, and an unsigned one; neither counts.
    const copied = redis("GET", `bull:clean:harness-finished:${doneRun}`);
    redis("SET", `bull:clean:harness-finished:${liveRun}.live`, copied);
    redis("SET", "bull:clean:harness-finished:ghost", JSON.stringify({ runId: "ghost", sig: "0".repeat(64) }));
    const liveKeys = ofRun(liveRun);

    const cleaned = await clean();
    assert.match(cleaned, new RegExp(`removed run ${doneRun} `));
    assert.match(cleaned, new RegExp(`kept run ${liveRun}\\.live: its finished marker does not count`));
    assert.match(cleaned, /kept run ghost: its finished marker does not count/);
    assert.deepEqual(ofRun(doneRun), [], "no key of the finished run is left");
    const now = keys();
    assert.deepEqual(
      liveKeys.filter((key) => !now.includes(key)),
      [],
      "every key of the live run is left",
    );
    assert.match(await clean(), /nothing to clean on/);

    release();
    const ended = await live;
    assert.equal(ended.code, 0, ended.stderr);
    assert.deepEqual(
      readLines(join(dir, "live.results.jsonl")).map((line) => [line.id, line.status]),
      [["live", "ok"]],
    );
    assert.match(await clean(), new RegExp(`removed run ${liveRun} `));
    assert.deepEqual(
      ofRun(liveRun),
      [`bull:clean:harness-finished:${liveRun}.live`],
      "only the planted marker is left",
    );
  } finally {
    release();
    workerChild?.kill("SIGTERM");
    const stopped = await worker;
    assert.equal(stopped.code, 0, stopped.stderr);
  }
});
