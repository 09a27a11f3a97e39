// `harness batch` runs as results people can trust: a run id in every line; the same command
// resumes its run while another model (or --rerun) is a run of its own; one writer per results
// file; a task whose harness is killed is recorded with what it spent and tried again next run,
// in a fresh copy; a killed batch takes its tasks' harnesses with it; per-task and per-batch
// limits end tasks with their own status; the report puts two runs side by side.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { predictionsPathOf, readPredictions } from "../../src/batch/predictions.ts";
import { readResults } from "../../src/batch/results-file.ts";
import { pricedEnv, promptOf, readLines } from "../support/batch-files.ts";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { harnessesIn, isAlive } from "../support/process-finder.ts";

/** More steps than any test makes requests: every step is the same routing function. */
const SCRIPT_STEPS = 400;
/** A task's timeout where a call must be under way when it strikes. */
const TIMEOUT_S = 5;
/** How often the test looks for the moment to act. */
const POLL_MS = 50;
/** Longest wait for a killed process to be gone: far above the expected milliseconds. */
const GONE_LIMIT_MS = 30_000;

const serve = fakeServerPerTest();

function serveByPrompt(route: (prompt: string, request: RecordedRequest) => ScriptStep | Promise<ScriptStep>) {
  const step: ScriptStep = (request) => route(promptOf(request), request);
  return serve(Array.from({ length: SCRIPT_STEPS }, () => step));
}

function writeTasks(dir: string, tasks: Array<Record<string, unknown>>): void {
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
}

function waitFor(isTime: () => boolean, what: string, limitMs = GONE_LIMIT_MS * 3): Promise<void> {
  const deadline = Date.now() + limitMs;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (isTime()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`gave up waiting for ${what}`));
      }
    }, POLL_MS);
  });
}

test("the same command resumes its run; another model is a new run that runs every task; --rerun too; the report compares them", async () => {
  const fake = await serveByPrompt((prompt, request) => ({ reply: { text: `${request.body.model}: ${prompt}` } }));
  const dir = tempDir();
  writeTasks(
    dir,
    [1, 2, 3].map((n) => ({ id: `t${n}`, prompt: `task ${n}` })),
  );
  const env = pricedEnv();
  const base = ["batch", "tasks.jsonl", "--out", "results.jsonl", "--provider", "openai", "--base-url", fake.baseUrl];
  const first = await runCli([...base, "--model", "model-a"], { env, cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const again = await runCli([...base, "--model", "model-a"], { env, cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /resuming run \S+: 3 of 3 tasks already have results/);
  assert.equal(fake.requests.length, 3, "the resumed run called no model");

  const other = await runCli([...base, "--model", "model-b"], { env, cwd: dir });
  assert.equal(other.code, 0, other.stderr);
  const rerun = await runCli([...base, "--model", "model-b", "--rerun"], { env, cwd: dir });
  assert.equal(rerun.code, 0, rerun.stderr);

  const lines = readLines(join(dir, "results.jsonl"));
  const runs = [...new Set(lines.map((line) => line.runId))];
  assert.equal(runs.length, 3, "model-a, model-b, and model-b again");
  assert.deepEqual(
    lines
      .map((line) => [line.runId === runs[0] ? "a" : line.runId === runs[1] ? "b" : "b2", line.id, line.answer])
      .sort(),
    [
      ["a", "t1", "model-a: task 1"],
      ["a", "t2", "model-a: task 2"],
      ["a", "t3", "model-a: task 3"],
      ["b", "t1", "model-b: task 1"],
      ["b", "t2", "model-b: task 2"],
      ["b", "t3", "model-b: task 3"],
      ["b2", "t1", "model-b: task 1"],
      ["b2", "t2", "model-b: task 2"],
      ["b2", "t3", "model-b: task 3"],
    ],
    "exactly one result per task and run, each from its own model",
  );
  assert.deepEqual(
    fake.requests.map((request) => request.body.model),
    [...Array(3).fill("model-a"), ...Array(6).fill("model-b")],
  );
  // Predictions per run: the second model's run did not overwrite the first's; each run's file
  // holds its own model's (empty: nothing was changed) patches.
  const out = join(dir, "results.jsonl");
  const predictionsOf = (runId: string) =>
    readPredictions(out, runId).map((entry) => [entry.instance_id, entry.model_name_or_path, entry.model_patch]);
  for (const [index, model] of ["model-a", "model-b", "model-b"].entries())
    assert.deepEqual(
      predictionsOf(runs[index]).sort(),
      ["t1", "t2", "t3"].map((id) => [id, model, ""]),
      `run ${index + 1}'s predictions, in ${predictionsPathOf(out, runs[index])}`,
    );
  assert.match(other.stderr, new RegExp(`predictions: .*results\\.predictions\\.${runs[1]}\\.jsonl`));
  // A results file of an older version: lines without a run id and one predictions file, still read.
  const old = join(dir, "old.jsonl");
  writeFileSync(old, `${JSON.stringify({ id: "t1", status: "ok", model: "m" })}\n`);
  writeFileSync(
    predictionsPathOf(old),
    `${JSON.stringify({ instance_id: "t1", model_name_or_path: "m", model_patch: "p" })}\n`,
  );
  assert.equal(readResults(old)[0].runId, undefined);
  assert.deepEqual(readPredictions(old, undefined), [{ instance_id: "t1", model_name_or_path: "m", model_patch: "p" }]);

  // Two files compared: a's run and b's runs, side by side per task.
  const report = await runCli(["batch", "report", "results.jsonl", "--html", "report.html"], { env, cwd: dir });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^model-a \(openai, chat, thinking default\) · run /);
  assert.match(
    report.stdout,
    /\n {2}3 of 3 tasks ok: 100\.0% \(95% CI 43\.9%–100\.0%\) · \$0\.00006 spent · \$0\.00002 per solved task/,
  );
  assert.match(
    report.stdout,
    /\ntasks side by side \(those not ok in every run first\):\ntask +run 1 +run 2 +run 3\nt1 +ok 1t 15 \$0\.00002 /,
  );
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.equal(html.match(/<th colspan="7" class="run-start">run \d: model-[ab]<\/th>/g)?.length, 3);
  assert.ok(html.indexOf('id="runs"') < html.indexOf('id="tasks"'), "the page opens on the runs' summary");
});

test("a second batch on the same results file stops at once, naming the first; the first is unharmed", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const fake = await serveByPrompt(async (prompt) => {
    await gate;
    return { reply: { text: `done ${prompt}` } };
  });
  const dir = tempDir();
  writeTasks(
    dir,
    [1, 2].map((n) => ({ id: `t${n}`, prompt: `task ${n}` })),
  );
  const env = cleanEnv();
  const args = ["batch", "tasks.jsonl", ...fakeFlags(fake)];
  const first = runCli(args, { env, cwd: dir });
  await waitFor(() => fake.requests.length === 2, "the first batch's requests");
  const second = await runCli(args, { env, cwd: dir });
  assert.equal(second.code, 1);
  assert.match(
    second.stderr,
    /results\.jsonl is being written by another batch \(pid \d+ on [^,]+, since [^)]+\); wait for it to end, or give this one another --out/,
  );
  release();
  const done = await first;
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual(
    readLines(join(dir, "results.jsonl"))
      .map((line) => [line.id, line.status])
      .sort(),
    [
      ["t1", "ok"],
      ["t2", "ok"],
    ],
  );
  assert.equal(fake.requests.length, 2, "the second batch ran nothing");
  assert.deepEqual(
    readdirSync(dir).filter((name) => name.includes(".lock")),
    [],
    "the lock goes with its batch",
  );
});

test("a task whose harness is killed is recorded crashed with what it spent, and the next run tries it again in a fresh copy", async () => {
  const dir = tempDir();
  const workRoot = join(dir, "results.work");
  let kills = 0;
  const fake = await serveByPrompt((prompt, request) => {
    if (prompt !== "the crashing task") return { reply: { text: "fine" } };
    const isFirstCall = !request.body.messages.some((message: { role: string }) => message.role === "tool");
    if (isFirstCall && kills === 0)
      return { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo edited > edited.txt" } }] } };
    // The second call of the first attempt: its harness is killed, as the OOM killer would.
    if (!isFirstCall && kills === 0) {
      kills++;
      for (const pid of harnessesIn(workRoot)) process.kill(pid, "SIGKILL");
      return { hang: true };
    }
    return { reply: { text: "fixed" } };
  });
  writeTasks(dir, [
    { id: "crash", prompt: "the crashing task" },
    { id: "calm", prompt: "a calm task" },
  ]);
  const env = pricedEnv();
  const args = ["batch", "tasks.jsonl", "--concurrency", "1", ...fakeFlags(fake)];
  const first = await runCli(args, { env, cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const [crashed] = readLines(join(dir, "results.jsonl")).filter((line) => line.id === "crash");
  // The call it completed (10 in, 5 out) and the one in flight when it was killed, read from its
  // session file: that request estimated at 23 tokens in (the last request's 10, its reply's 5 and
  // the tool result by characters), priced at $1/M.
  const inFlight = { tokens: { input: 23, output: 0, cached: 0 }, cost: 0.000023, estimated: true };
  assert.deepEqual(
    [crashed.status, crashed.attempt, crashed.tokens, crashed.cost, crashed.inFlight],
    ["crashed", 1, { input: 33, output: 5, cached: 0 }, 0.000043, inFlight],
    "the model call it made is counted, and the one in flight",
  );
  assert.match(crashed.error ?? "", /^the harness was killed by SIGKILL/);
  assert.match(crashed.diff ?? "", /\+\+\+ b\/edited\.txt\n@@ -0,0 \+1 @@\n\+edited\n/);

  const second = await runCli(args, { env, cwd: dir });
  assert.equal(second.code, 0, second.stderr);
  const lines = readLines(join(dir, "results.jsonl"));
  const retried = lines.filter((line) => line.id === "crash");
  assert.deepEqual(
    retried.map((line) => [line.status, line.attempt]),
    [
      ["crashed", 1],
      ["ok", 2],
    ],
  );
  assert.equal(lines.filter((line) => line.id === "calm").length, 1, "the task that finished is not run again");
  assert.equal(retried[1].workdir, `${retried[0].workdir}.2`, "the retry ran in a copy of its own");
  assert.equal(retried[1].diff, "", "and that copy was fresh: nothing of the first attempt's edit");
});

test("a batch killed with SIGKILL takes its tasks' harnesses with it; the resumed run records each lost attempt with what it spent, once, then finishes it", async () => {
  const dir = tempDir();
  let phase = 1;
  // Phase 1: each task's first call asks for a command (10 in, 5 out), its second hangs until the
  // batch is killed. Phase 2: each task answers at once (10 in, 5 out).
  const fake = await serveByPrompt((prompt, request) => {
    if (phase === 2) return { reply: { text: `done ${prompt}` } };
    const isFirstCall = !request.body.messages.some((message: { role: string }) => message.role === "tool");
    return isFirstCall ? { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } } : { hang: true };
  });
  writeTasks(
    dir,
    [1, 2, 3].map((n) => ({ id: `t${n}`, prompt: `task ${n}` })),
  );
  const env = pricedEnv();
  const args = ["batch", "tasks.jsonl", "--concurrency", "3", ...fakeFlags(fake)];
  let children: number[] = [];
  const killed = await runCli(args, {
    env,
    cwd: dir,
    onSpawn: (batch) => {
      void waitFor(() => fake.requests.length === 6, "three tasks each on their second call").then(() => {
        children = harnessesIn(join(dir, "results.work"));
        batch.kill("SIGKILL");
      });
    },
  });
  assert.equal(killed.signal, "SIGKILL");
  assert.equal(children.length, 3);
  await waitFor(() => children.every((pid) => !isAlive(pid)), "the orphaned harnesses to end", GONE_LIMIT_MS);
  assert.deepEqual(readLines(join(dir, "results.jsonl")), [], "the killed batch had recorded nothing");
  const records = join(dir, "results.attempts");
  const [runId] = readdirSync(records);
  const recordFiles = readdirSync(join(records, runId)).sort();
  assert.deepEqual(recordFiles, ["t1.1.json", "t2.1.json", "t3.1.json"], "each running attempt was written down");
  const kept = recordFiles.map((name) => [name, readFileSync(join(records, runId, name), "utf8")]);
  // As if the batch had died before it read anything of its tasks' harnesses (their sessions,
  // their spend): what they spent is read back from their session files, found by working copy.
  for (const [name, text] of kept) {
    const { sessionId: _, spent: __, calls: ___, ...unread } = JSON.parse(text);
    writeFileSync(join(records, runId, name), JSON.stringify(unread));
  }

  phase = 2;
  const resumed = await runCli(args, { env, cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /resuming run \S+: 0 of 3 tasks already have results/);
  const lines = () =>
    readLines(join(dir, "results.jsonl"))
      .map((line) => [line.id, line.status, line.attempt, line.tokens, line.cost, line.turns, line.inFlight])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  // The call in flight at the kill (the hung second call) is read from the session file: its
  // request estimated at 23 tokens in (the first request's 10, its reply's 5, the tool result by
  // characters), priced at $1/M, in the line's tokens and cost and shown apart.
  const inFlight = { tokens: { input: 23, output: 0, cached: 0 }, cost: 0.000023, estimated: true };
  const expected = [1, 2, 3].flatMap((n) => [
    [`t${n}`, "crashed", 1, { input: 33, output: 5, cached: 0 }, 0.000043, 1, inFlight],
    [`t${n}`, "ok", 2, { input: 10, output: 5, cached: 0 }, 0.00002, 1, undefined],
  ]);
  assert.deepEqual(
    lines(),
    expected,
    "the killed attempt's call and its call in flight are counted, and the retry is attempt 2",
  );
  assert.deepEqual(readdirSync(join(records, runId)), [], "the records are cleared once recorded");

  // A resume killed after writing the lost attempts' lines but before clearing their records
  // leaves both: the next resume clears the records and writes nothing twice.
  for (const [name, text] of kept) writeFileSync(join(records, runId, name), text);
  const again = await runCli(args, { env, cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(lines(), expected, "nothing recorded twice");
  assert.equal(fake.requests.length, 9, "and nothing run again");

  // The report counts every attempt: 6 calls of $0.00002 and 15 tokens, and 3 calls in flight of
  // $0.000023 and 23 tokens, for 3 solved tasks.
  const report = await runCli(["batch", "report", "results.jsonl"], { env, cwd: dir });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /3 of 3 tasks ok: 100\.0% .* · \$0\.00019 spent · \$0\.000063 per solved task/);
  assert.match(report.stdout, /\ntokens +53 +53 +53 +159\n/);
});

test("timeout, maxCost and --max-cost each end a task cleanly with a status of its own", async () => {
  const fake = await serveByPrompt((prompt) => {
    if (prompt === "slow") return { hang: true };
    // Two pieces of text (7 characters each), then silence until the timeout.
    if (prompt === "stalled") return { stall: { text: "half an answer, never finished" }, afterEvents: 3 };
    if (prompt === "spender") return { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
    return { reply: { text: `done ${prompt}` } };
  });
  const dir = tempDir();
  writeTasks(dir, [
    // Timeouts long enough for the harness to start and send its request under load.
    { id: "slow", prompt: "slow", timeout: TIMEOUT_S },
    { id: "stalled", prompt: "stalled", timeout: TIMEOUT_S },
    // Each call costs $0.00002: the cap is passed by the first.
    { id: "spender", prompt: "spender", maxCost: 0.00001 },
  ]);
  const env = pricedEnv();
  const limited = await runCli(["batch", "tasks.jsonl", ...fakeFlags(fake)], { env, cwd: dir });
  assert.equal(limited.code, 0, limited.stderr);
  const byId = new Map(readLines(join(dir, "results.jsonl")).map((line) => [line.id, line]));
  assert.deepEqual([byId.get("slow")?.status, byId.get("slow")?.error], ["timeout", `timeout: ran ${TIMEOUT_S} s`]);
  // The call each timeout cut off is counted from the session file, estimated (an OpenAI-style
  // stream says its usage last): "slow"'s request of 5 tokens in (its prompt by characters);
  // "stalled"'s request (6) and the 14 characters of reply it had streamed (8 with the framing).
  const spendOf = (id: string) => {
    const line = byId.get(id);
    return [line?.status, line?.tokens, line?.cost, line?.inFlight];
  };
  assert.deepEqual(spendOf("slow"), [
    "timeout",
    { input: 5, output: 0, cached: 0 },
    0.000005,
    { tokens: { input: 5, output: 0, cached: 0 }, cost: 0.000005, estimated: true },
  ]);
  assert.deepEqual(spendOf("stalled"), [
    "timeout",
    { input: 6, output: 8, cached: 0 },
    0.000022,
    { tokens: { input: 6, output: 8, cached: 0 }, cost: 0.000022, estimated: true },
  ]);
  assert.deepEqual(
    [byId.get("spender")?.status, byId.get("spender")?.error],
    ["max_cost", "maxCost: spent $0.00002 of $0.00001"],
  );

  // The batch's cap: one task at a time, each $0.00002; after the second no third starts.
  const capped = tempDir();
  writeTasks(
    capped,
    [1, 2, 3, 4].map((n) => ({ id: `c${n}`, prompt: `cheap ${n}` })),
  );
  const run = await runCli(
    ["batch", "tasks.jsonl", "--concurrency", "1", "--max-cost", "0.00003", ...fakeFlags(fake)],
    {
      env,
      cwd: capped,
    },
  );
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stderr,
    /--max-cost \$0\.00003 reached \(\$0\.0000 spent\)|--max-cost \$0\.00003 reached \(\$0\.0000\d spent\)/,
  );
  assert.match(run.stderr, /2 tasks not run; run again with a higher --max-cost to go on/);
  assert.deepEqual(
    readLines(join(capped, "results.jsonl")).map((line) => [line.id, line.status]),
    [
      ["c1", "ok"],
      ["c2", "ok"],
    ],
  );
});

test("a task may not run in the home folder", async () => {
  const fake = await serveByPrompt(() => ({ reply: { text: "never" } }));
  const dir = tempDir();
  const env = cleanEnv({ HOME: tempDir("harness-home-folder-") });
  writeTasks(dir, [{ id: "home", prompt: "write ~/.bashrc", cwd: env.HOME as string }]);
  const run = await runCli(["batch", "tasks.jsonl", ...fakeFlags(fake)], { env, cwd: dir });
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /tasks\.jsonl: task "home": cwd .* holds your home folder: .*no task runs there; nothing was run/,
  );
  assert.equal(existsSync(join(dir, "results.jsonl")), false);
  assert.equal(fake.requests.length, 0);
});

test("SWE-bench instances run as tasks, and the predictions file holds each one's patch", async () => {
  const dir = tempDir();
  const repo = join(dir, "acme", "widget");
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "f.txt"), "broken\n");
  git("add", ".");
  git("commit", "-qm", "base");
  const baseCommit = git("rev-parse", "HEAD").trim();
  writeFileSync(join(repo, "f.txt"), "later\n");
  git("commit", "-qam", "later");
  const fake = await serveByPrompt((_, request) =>
    request.body.messages.some((message: { role: string }) => message.role === "tool")
      ? { reply: { text: "fixed it" } }
      : { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo fixed > f.txt" } }] } },
  );
  const instance = {
    instance_id: "acme__widget-1",
    repo: "acme/widget",
    base_commit: baseCommit,
    problem_statement: "f.txt says broken; make it say fixed",
    test_command: 'test "$(cat f.txt)" = fixed',
    patch: "the gold patch, not shown to the agent",
    FAIL_TO_PASS: '["test_f"]',
    PASS_TO_PASS: "[]",
    hints_text: "",
    created_at: "2024-01-01T00:00:00Z",
    version: "1.0",
    environment_setup_commit: baseCommit,
  };
  writeFileSync(join(dir, "swe.jsonl"), `${JSON.stringify(instance)}\n`);
  const run = await runCli(["batch", "swe.jsonl", ...fakeFlags(fake)], { env: cleanEnv(), cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const [result] = readLines(join(dir, "results.jsonl"));
  assert.deepEqual([result.id, result.status, result.testExitCode], ["acme__widget-1", "ok", 0]);
  assert.equal(promptOf(fake.requests[0]), "f.txt says broken; make it say fixed");
  const [prediction] = readPredictions(join(dir, "results.jsonl"), result.runId);
  assert.deepEqual(Object.keys(prediction), ["instance_id", "model_name_or_path", "model_patch"]);
  assert.deepEqual([prediction.instance_id, prediction.model_name_or_path], ["acme__widget-1", "fake-model"]);
  // The patch applies to the instance's base commit and makes the fix.
  const check = join(dir, "check");
  execFileSync("git", ["clone", "-q", repo, check]);
  execFileSync("git", ["checkout", "-q", baseCommit], { cwd: check });
  execFileSync("git", ["apply"], { cwd: check, input: prediction.model_patch });
  assert.equal(readFileSync(join(check, "f.txt"), "utf8"), "fixed\n");

  writeFileSync(join(dir, "bad.jsonl"), `${JSON.stringify({ ...instance, hint_text: "typo" })}\n`);
  const bad = await runCli(["batch", "bad.jsonl"], { cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad\.jsonl:1: SWE-bench instance: unknown key "hint_text" \(did you mean "hints_text"\?\)/);
});
