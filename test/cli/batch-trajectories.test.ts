// Every attempt of a batch writes a trajectory in mini-swe-agent's `*.traj.json` format
// (src/batch/trajectory.ts), best-of-N attempts each their own, with no key in it.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AttemptSummary } from "../../src/batch/task-result.ts";
import { makeRepo, pricedEnv, promptOf, readLines } from "../support/batch-files.ts";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** The provider key of the batch (and its tasks); a best-of-N task's model writes it into a file. */
const KEY = "sk-trajtest-0123456789abcdefXYZ";

interface TrajectoryFile {
  info: {
    model_stats: { instance_cost: number; api_calls: number };
    exit_status: string;
    submission: string;
    mini_version: string;
    config: { model: { model_name: string } };
    harness: { runId: string; attempt: number; copy?: number; sessionId: string };
  };
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
    extra: Record<string, unknown>;
  }>;
  trajectory_format: string;
  instance_id: string;
}

test("trajectories: one mini-swe-agent file per attempt, with the calls, the diff, the spend, and no key", async (t) => {
  const step: ScriptStep = (request: RecordedRequest) => {
    if (request.body.messages.some((message: { role: string }) => message.role === "tool"))
      return { reply: { text: "done" } };
    return promptOf(request).startsWith("fix")
      ? { reply: { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "printf 'good\\n' > f.txt" } }] } }
      : { reply: { toolCalls: [{ id: "c2", name: "write_file", arguments: { path: "k.txt", content: `${KEY}\n` } }] } };
  };
  const fake = await serve(Array.from({ length: 6 }, () => step));
  const dir = tempDir();
  makeRepo(dir);
  const tasks = [
    { id: "fix/1", prompt: "fix f.txt", repo: "repo", test: "grep -qx good f.txt" },
    { id: "leak", prompt: "leak the key", repo: "repo", attempts: 2 },
  ];
  writeFileSync(join(dir, "tasks.jsonl"), tasks.map((task) => JSON.stringify(task)).join("\n"));
  const run = await runCli(["batch", "tasks.jsonl", "--out", "results.jsonl", ...fakeFlags(fake)], {
    env: pricedEnv({ OPENAI_API_KEY: KEY }),
    cwd: dir,
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = readLines(join(dir, "results.jsonl"));
  const fix = lines.find((line) => line.id === "fix/1");
  const leak = lines.find((line) => line.id === "leak");
  assert.ok(fix && leak, run.stderr);
  const runDir = join(dir, "results.trajectories", fix.runId);
  // One file per attempt, named by task, attempt and copy; private as the sessions are.
  assert.deepEqual(readdirSync(runDir).sort(), ["fix_1.1.traj.json", "leak.1.2.traj.json", "leak.1.traj.json"]);
  for (const name of readdirSync(runDir)) {
    const text = readFileSync(join(runDir, name), "utf8");
    assert.ok(!text.includes(KEY), `${name} holds the key`);
    assert.ok(!text.includes(KEY.slice(0, 16)), `${name} holds part of the key`);
    assert.equal(statSync(join(runDir, name)).mode & 0o077, 0, `${name} is private`);
  }
  const read = (name: string) => JSON.parse(readFileSync(join(runDir, name), "utf8")) as TrajectoryFile;

  const trajectory = read("fix_1.1.traj.json");
  assert.equal(trajectory.trajectory_format, "mini-swe-agent-1.1");
  assert.equal(trajectory.instance_id, "fix/1");
  assert.equal(trajectory.info.exit_status, "ok");
  assert.equal(trajectory.info.submission, fix.diff, "the submission is the attempt's diff");
  assert.match(trajectory.info.submission, /^\+good$/m);
  assert.deepEqual(trajectory.info.model_stats, { instance_cost: fix.cost, api_calls: fix.turns });
  assert.equal(fix.turns, 2);
  assert.equal(trajectory.info.config.model.model_name, "fake-model");
  assert.deepEqual([trajectory.info.harness.runId, trajectory.info.harness.attempt], [fix.runId, 1]);
  assert.equal(trajectory.info.harness.sessionId, fix.sessionId);
  // The conversation as OpenAI chat messages: the prompt, the call, its result, the answer, then the exit.
  assert.deepEqual(
    trajectory.messages.map((message) => message.role),
    ["user", "assistant", "tool", "assistant", "exit"],
  );
  const [prompt, call, result, answer, exit] = trajectory.messages;
  assert.equal(prompt?.content, "fix f.txt");
  assert.deepEqual(call?.tool_calls, [
    {
      id: "c1",
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command: "printf 'good\\n' > f.txt" }) },
    },
  ]);
  assert.deepEqual(call?.extra.actions, [{ tool: "bash", command: "printf 'good\\n' > f.txt", tool_call_id: "c1" }]);
  assert.equal(typeof call?.extra.cost, "number");
  assert.equal(result?.tool_call_id, "c1");
  assert.equal(answer?.content, "done");
  assert.deepEqual(exit?.extra, { exit_status: "ok", submission: fix.diff });
  const costs = trajectory.messages.map((message) => (message.extra.cost as number | undefined) ?? 0);
  assert.ok(Math.abs(costs.reduce((sum, cost) => sum + cost, 0) - (fix.cost ?? 0)) < 1e-12, "each call's cost adds up");

  // Best of N: each attempt's own file, its own session and spend (the line's `attempts`).
  assert.equal(leak.attempts?.length, 2);
  for (const [index, name] of ["leak.1.traj.json", "leak.1.2.traj.json"].entries()) {
    const own: TrajectoryFile = read(name);
    const summary: AttemptSummary | undefined = leak.attempts?.find(
      (attempt) => attempt.sessionId === own.info.harness.sessionId,
    );
    assert.ok(summary, `${name} is one of the line's attempts`);
    assert.equal(own.info.model_stats.instance_cost, summary.cost);
    assert.equal(own.info.exit_status, summary.status);
    assert.equal(own.info.harness.copy, index === 0 ? undefined : 2);
    // The key the model wrote reached the copy's file and so its diff: redacted in the trajectory.
    assert.match(own.info.submission, /^\+\[redacted\]$/m);
  }
  assert.ok(leak.diff?.includes(KEY), "the results line keeps the diff as git made it");

  // The report's row links a copy of the task's trajectory (the picked attempt's for best of N); a
  // link planted in place of one (to a file outside that looks like it) is not followed.
  const outside = mkdtempSync("/var/tmp/harness-traj-canary-");
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  const planted = { trajectory_format: "mini-swe-agent-1.1", instance_id: "fix/1", canary: "PLANTED" };
  writeFileSync(join(outside, "x.json"), JSON.stringify(planted));
  rmSync(join(runDir, "fix_1.1.traj.json"));
  symlinkSync(join(outside, "x.json"), join(runDir, "fix_1.1.traj.json"));
  const report = await runCli(["batch", "report", "results.jsonl", "--html", "report.html"], {
    env: pricedEnv(),
    cwd: dir,
  });
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(join(dir, "report.html"), "utf8");
  const hrefs = [...page.matchAll(/href="([^"]+\.traj\.json)"/g)].map((match) => decodeURIComponent(match[1] ?? ""));
  assert.equal(hrefs.length, 1, "a trajectory link for leak, none for the planted link");
  const picked = leak.picked && leak.picked > 1 ? "leak.1.2.traj.json" : "leak.1.traj.json";
  assert.equal(readFileSync(join(dir, hrefs[0] ?? ""), "utf8"), readFileSync(join(runDir, picked), "utf8"));
  for (const name of readdirSync(join(dir, "report.files", "run-1")))
    assert.doesNotMatch(readFileSync(join(dir, "report.files", "run-1", name), "utf8"), /PLANTED/);
});
