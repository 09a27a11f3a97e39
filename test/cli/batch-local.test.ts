// `harness batch` on one machine: 20 tasks against one fake server that answers each by its
// prompt (tasks run concurrently, so a fixed script order cannot work), interrupted half-way
// and resumed; a rate limit that slows the pool instead of failing the task; the report.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { TaskResult } from "../../src/batch/task-result.ts";
import { promptOf, readLines } from "../support/batch-files.ts";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, ROOT, runCli, tempDir } from "../support/helpers.ts";

/** How often the test looks at the results file for the moment to interrupt. */
const POLL_MS = 50;
/** More steps than any test makes requests: every step is the same routing function. */
const SCRIPT_STEPS = 500;

const serve = fakeServerPerTest();

/** A fake server whose every answer comes from `route`, given the task's prompt. */
async function serveByPrompt(route: (prompt: string, request: RecordedRequest) => ScriptStep) {
  const step: ScriptStep = (request) => route(promptOf(request), request);
  return serve(Array.from({ length: SCRIPT_STEPS }, () => step));
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** A git repository whose tag v1 holds f.txt = "one" and whose branch head holds "two". */
function makeRepo(dir: string): void {
  mkdirSync(dir);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "f.txt"), "one\n");
  git("add", ".");
  git("commit", "-qm", "one");
  git("tag", "v1");
  writeFileSync(join(dir, "f.txt"), "two\n");
  git("commit", "-qam", "two");
}

test("20 tasks, 4 at once: one fails, one hits max turns; interrupted, then resumed without redoing finished tasks", async () => {
  let phase = 1;
  const requests: Array<{ phase: number; prompt: string }> = [];
  const fake = await serveByPrompt((prompt) => {
    requests.push({ phase, prompt });
    const n = Number(/^task (\d+)$/.exec(prompt)?.[1]);
    if (n === 5)
      return { status: 400, body: { error: { message: "task 5 is a bad request", type: "invalid_request_error" } } };
    if (n === 6) return { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
    // The first run stalls on the second half, so it can be interrupted with work in flight.
    if (phase === 1 && n > 10) return { hang: true };
    return { reply: { text: `answer ${n}` } };
  });
  const dir = tempDir();
  makeRepo(join(dir, "repo"));
  const tasks = Array.from({ length: 20 }, (_, index) => {
    const n = index + 1;
    const task: Record<string, unknown> = { id: `t${n}`, prompt: `task ${n}` };
    if (n === 1) Object.assign(task, { setup: "echo ready > setup.txt", test: "test -f setup.txt" });
    if (n === 2) Object.assign(task, { test: "exit 3" });
    if (n === 3) Object.assign(task, { repo: "repo", ref: "v1", test: 'test "$(cat f.txt)" = one' });
    if (n === 6) Object.assign(task, { maxTurns: 2 });
    return JSON.stringify(task);
  });
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.join("\n")}\n`);
  const env = cleanEnv();
  // Known prices, so every result carries a cost: 10 tokens in at $1/M and 5 out at $2/M per call.
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2 } } } }),
  );
  const out = join(dir, "results.jsonl");
  const args = ["batch", "tasks.jsonl", "--concurrency", "4", "--out", out, ...fakeFlags(fake)];

  const hanging = () =>
    requests.filter((request) => request.phase === 1 && Number(request.prompt.split(" ")[1]) > 10).length;
  const first = await runCli(args, {
    env,
    cwd: dir,
    onSpawn: (child) => {
      const timer = setInterval(() => {
        if (readLines(out).length < 10 || hanging() < 4) return;
        clearInterval(timer);
        child.kill("SIGINT");
      }, POLL_MS);
      child.on("exit", () => clearInterval(timer));
    },
  });
  assert.equal(first.code, 130, first.stderr);
  const firstResults = readLines(out);
  assert.deepEqual(
    firstResults.map((result) => result.id).sort(),
    ["t1", "t10", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"],
    "the interrupted tasks left no result",
  );
  const byId = new Map(firstResults.map((result) => [result.id, result]));
  const t1 = byId.get("t1") as TaskResult;
  const runId = t1.runId;
  assert.match(runId, /^\d{8}-\d{6}-[0-9a-f]{6}$/);
  assert.deepEqual(
    { ...t1, durationMs: 0, sessionId: "", finishedAt: "" },
    {
      id: "t1",
      status: "ok",
      runId,
      provider: "openai",
      model: "fake-model",
      api: "chat",
      thinking: null,
      harnessVersion: JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version,
      attempt: 1,
      answer: "answer 1",
      answeredBy: "fake-model",
      turns: 1,
      tokens: { input: 10, output: 5, cached: 0 },
      cost: 0.00002,
      testExitCode: 0,
      durationMs: 0,
      finishedAt: "",
      sessionId: "",
      sessionPath: join(env.HARNESS_HOME as string, "sessions", `${t1.sessionId}.jsonl`),
      workdir: join(dir, "results.work", runId, "t1"),
      // setup's file is what the task's copy gained; the diff is against the empty folder it started as.
      diff: "diff --git a/setup.txt b/setup.txt\nnew file mode 100644\nindex 0000000..395527d\n--- /dev/null\n+++ b/setup.txt\n@@ -0,0 +1 @@\n+ready\n",
    },
  );
  assert.ok(Date.parse(t1.finishedAt) > 0, "finishedAt is a time");
  assert.ok(
    existsSync(join(env.HARNESS_HOME as string, "sessions", `${t1.sessionId}.jsonl`)),
    "each task has its own session file",
  );
  assert.equal(
    existsSync(join(dir, "results.work", runId, "t1", "setup.txt")),
    true,
    "setup ran in the task's own working copy",
  );
  assert.deepEqual([byId.get("t2")?.status, byId.get("t2")?.testExitCode], ["failed", 3]);
  assert.deepEqual(
    [byId.get("t3")?.status, byId.get("t3")?.testExitCode],
    ["ok", 0],
    "the repository was checked out at its ref",
  );
  assert.equal(byId.get("t5")?.status, "failed");
  assert.match(byId.get("t5")?.error ?? "", /400 .*task 5 is a bad request/);
  assert.deepEqual([byId.get("t6")?.status, byId.get("t6")?.turns, byId.get("t6")?.cost], ["max_turns", 2, 0.00004]);
  assert.equal(new Set(firstResults.map((result) => result.sessionId)).size, 10);
  assert.equal(
    first.stderr.split("\n").filter((line) => /^(ok|failed|max_turns|error|interrupted) t\d+ /.test(line)).length,
    10,
    "a plain line per finished task (stderr is not a terminal)",
  );

  // A crash in the middle of writing a line leaves it torn; the resumed batch drops it.
  appendFileSync(out, '{"id":"t11","status":"o');
  phase = 2;
  const second = await runCli(args, { env, cwd: dir });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, new RegExp(`resuming run ${runId}: 10 of 20 tasks already have results`));
  const results = readLines(out);
  assert.ok(
    readFileSync(out, "utf8")
      .split("\n")
      .slice(0, -1)
      .every((line) => JSON.parse(line)),
    "every line is whole JSON",
  );
  assert.deepEqual(
    results.map((result) => result.id).sort(),
    Array.from({ length: 20 }, (_, index) => `t${index + 1}`).sort(),
    "each task exactly once",
  );
  for (const result of results.slice(10))
    assert.deepEqual([result.status, result.answer], ["ok", `answer ${result.id.slice(1)}`]);

  const firstRun = countBy(
    requests.filter((request) => request.phase === 1),
    (request) => request.prompt,
  );
  const secondRun = countBy(
    requests.filter((request) => request.phase === 2),
    (request) => request.prompt,
  );
  for (let n = 1; n <= 10; n++) {
    assert.equal(firstRun.get(`task ${n}`), n === 6 ? 2 : 1, `task ${n}: one run (max turns 2 for task 6)`);
    assert.equal(
      secondRun.get(`task ${n}`),
      undefined,
      `task ${n} finished before the interrupt and was not run again`,
    );
  }
  for (let n = 11; n <= 20; n++) assert.equal(secondRun.get(`task ${n}`), 1, `task ${n} ran once after resuming`);

  const report = await runCli(["batch", "report", out, "--html", join(dir, "report.html")], { env, cwd: dir });
  assert.equal(report.code, 0, report.stderr);
  assert.match(
    report.stdout,
    new RegExp(
      `^fake-model \\(openai, chat, thinking default\\) · run ${runId} · harness [^ ]+ · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · ${out}\n` +
        "  17 of 20 tasks ok: 85\\.0% \\(95% CI 64\\.0%–94\\.8%\\) · \\$0\\.0004 spent · \\$0\\.000024 per solved task · median time ",
    ),
  );
  assert.match(report.stdout, /\n20 tasks · 17 ok \(85\.0%\) · 2 failed · 1 max_turns\ntests: 2 of 3 passed\n/);
  assert.match(report.stdout, /\nturns +1 +1 +2 +21\n/);
  assert.match(report.stdout, /\ncost +\$0\.00002 +\$0\.00002 +\$0\.00004 +\$0\.0004\n/);
  assert.match(report.stdout, /\nduration +\d/);
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.equal(html.match(/<tr data-statuses=/g)?.length, 20, "a row per task");
  assert.match(html, /<tr data-statuses="failed"><td class="id">t2<\/td>/, "tasks that failed come first");
  assert.doesNotMatch(html, /<link|src=|url\(/, "self-contained: nothing to fetch");
  for (const [, href] of html.matchAll(/href="([^"]*)"/g))
    assert.match(
      href,
      /^report\.files\/run-1\/\d+-t\d+\.(diff\.html|session\.html|traj\.json)$/,
      "links only to the files beside it",
    );
});

test("a rate limit the child could not outlast slows the pool and the task runs again; it does not fail", async () => {
  let refusals = 0;
  const fake = await serveByPrompt((prompt) => {
    // The child retries 4 times itself (HARNESS_RETRY_BASE_MS keeps it quick): 5 refusals end its run.
    if (prompt === "task 2" && refusals < 5) {
      refusals++;
      return { status: 429, body: { error: { message: "slow down", type: "rate_limit_error" } } };
    }
    return { reply: { text: `done: ${prompt}` } };
  });
  const dir = tempDir();
  writeFileSync(
    join(dir, "tasks.jsonl"),
    [1, 2, 3].map((n) => JSON.stringify({ id: `t${n}`, prompt: `task ${n}` })).join("\n"),
  );
  const result = await runCli(
    ["batch", "tasks.jsonl", "--concurrency", "2", "--out", "results.jsonl", ...fakeFlags(fake)],
    { env: cleanEnv(), cwd: dir },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /rate limited on t2: running at most 1 at once for now/);
  const results = readLines(join(dir, "results.jsonl"));
  assert.deepEqual(results.map((line) => [line.id, line.status, line.answer]).sort(), [
    ["t1", "ok", "done: task 1"],
    ["t2", "ok", "done: task 2"],
    ["t3", "ok", "done: task 3"],
  ]);
  assert.equal(fake.requests.filter((request) => promptOf(request) === "task 2").length, 6);
});

test("--api and --thinking given to the batch reach every task's harness", async () => {
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }]);
  const dir = tempDir();
  writeFileSync(
    join(dir, "tasks.jsonl"),
    [1, 2].map((n) => JSON.stringify({ id: `t${n}`, prompt: `task ${n}` })).join("\n"),
  );
  const result = await runCli(
    ["batch", "tasks.jsonl", "--concurrency", "1", ...fakeFlags(fake), "--api", "responses", "--thinking", "high"],
    { env: cleanEnv(), cwd: dir },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(
    readLines(join(dir, "results.jsonl")).map((line) => [line.id, line.status]),
    [
      ["t1", "ok"],
      ["t2", "ok"],
    ],
  );
  assert.deepEqual(
    fake.requests.map((request) => [request.path, request.body.reasoning?.effort]),
    [
      ["/v1/responses", "high"],
      ["/v1/responses", "high"],
    ],
  );
});

test("a bad tasks file is a usage error naming the line", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "tasks.jsonl"), '{"id":"a","prompt":"x"}\n{"id":"a","prompt":"y"}\n');
  const result = await runCli(["batch", "tasks.jsonl"], { cwd: dir });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /tasks\.jsonl:2: id "a" is already used on line 1/);
});

test("a report of one task says '1 task', not '1 tasks'", async () => {
  const fake = await serve([{ reply: { text: "done" } }]);
  const dir = tempDir();
  writeFileSync(join(dir, "tasks.jsonl"), JSON.stringify({ id: "only", prompt: "the one task" }));
  const run = await runCli(["batch", "tasks.jsonl", ...fakeFlags(fake)], { env: cleanEnv(), cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const report = await runCli(["batch", "report", "results.jsonl"], { env: cleanEnv(), cwd: dir });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /\n {2}1 of 1 task ok: 100\.0% \(95% CI 20\.7%–100\.0%\) /);
  assert.match(report.stdout, /\n1 task · 1 ok \(100\.0%\)\n/);
});

test("a task's outputSchema: its result line carries the validated answer; a bad schema stops the batch naming the task", async () => {
  const schema = {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
    additionalProperties: false,
  };
  const fake = await serveByPrompt((prompt) => {
    const n = Number(/^task (\d+)$/.exec(prompt)?.[1]);
    if (Number.isNaN(n)) return { reply: { text: "hello" } };
    return { reply: { toolCalls: [{ id: `call_${n}`, name: "final_answer", arguments: { n } }] } };
  });
  const dir = tempDir();
  const tasks = [1, 2].map((n) => JSON.stringify({ id: `t${n}`, prompt: `task ${n}`, outputSchema: schema }));
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.join("\n")}\n${JSON.stringify({ id: "plain", prompt: "hi" })}\n`);
  const result = await runCli(["batch", "tasks.jsonl", "--concurrency", "2", ...fakeFlags(fake)], {
    env: cleanEnv(),
    cwd: dir,
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = readLines(join(dir, "results.jsonl"));
  const byId = new Map(lines.map((line) => [line.id, line]));
  assert.deepEqual(byId.get("t1")?.structured_output, { n: 1 });
  assert.deepEqual(byId.get("t2")?.structured_output, { n: 2 });
  assert.equal(byId.get("t2")?.status, "ok");
  assert.equal(byId.get("plain")?.answer, "hello");
  assert.equal("structured_output" in (byId.get("plain") ?? {}), false);
  // The tool is offered to the tasks with a schema only.
  const offered = fake.requests.map((request) => [
    promptOf(request),
    JSON.stringify(request.body.tools).includes("final_answer"),
  ]);
  assert.deepEqual(
    new Map(offered.map(([prompt, has]) => [prompt, has])),
    new Map([
      ["task 1", true],
      ["task 2", true],
      ["hi", false],
    ]),
  );

  const bad = tempDir();
  writeFileSync(
    join(bad, "tasks.jsonl"),
    `${JSON.stringify({ id: "x", prompt: "p", outputSchema: { type: "object", properties: { n: { type: "nope" } } } })}\n`,
  );
  const refused = await runCli(["batch", "tasks.jsonl"], { cwd: bad });
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /tasks\.jsonl: task "x": outputSchema: the schema is not valid JSON Schema: \/properties\/n\/type/,
  );
});
