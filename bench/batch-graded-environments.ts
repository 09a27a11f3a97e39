// Issue 47's "Done when" at 150 tasks: `node --import tsx bench/batch-graded-environments.ts
// [--tasks 150]` after `npm run build`. N SWE-bench-shaped instances (instance_id, repo
// `django/django`, base_commit, problem_statement, test_patch, FAIL_TO_PASS and PASS_TO_PASS as
// the dataset's JSON text, our test_command and environment) run on a real redis-server queue with
// two workers of 4 (`--allow-rootfs`), each in the minimal rootfs (test/support/minimal-rootfs.ts);
// one worker is SIGKILLed after half the results and started again on its --workdir 3 s later.
// Every instance is graded by its own tests through the batch's grading (src/batch/grading/).
// *Decision*: no python in the rootfs: the "repository" is a tiny git repository named
// django/django beside the tasks file, and its test runner (added by the test_patch) is a shell
// script printing Django's runner lines (`test_x (module.Class) ... ok|FAIL`), which the Django
// log parser reads; it first checks it runs inside the rootfs, and prints nothing otherwise. The
// fake model fixes the bug in some instances (both FAIL_TO_PASS pass), half of it in others (one
// passes: RESOLVED_PARTIAL), and not at all in every third (RESOLVED_NO). Prints the figures, then
// checks each instance's resolution is the planned one, one final line per instance, and the spend
// recorded equals the spend the fake answered; exits 1 if not.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pricedEnv, promptOf, readLines } from "../test/support/batch-files.ts";
import { type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { TEST_QUEUE_KEY, tempDir } from "../test/support/helpers.ts";
import { makeMinimalRootfs, ROOTFS_MARKER } from "../test/support/minimal-rootfs.ts";
import { peakRssMb } from "../test/support/peak-rss.ts";
import { freePort } from "../test/support/redis-server.ts";
import {
  CALL_COST,
  cliStarter,
  finalsOf,
  killOneWorkerAndFinish,
  sleep,
  startRedisOn,
  TASKS,
  untilLines,
  workerArgs,
} from "./queue-bench.ts";

type Plan = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";
/** Every third instance left unfixed, every fourth of the others fixed by half, the rest fixed. */
const planOf = (n: number): Plan => (n % 3 === 0 ? "RESOLVED_NO" : n % 4 === 0 ? "RESOLVED_PARTIAL" : "RESOLVED_FULL");
const FIX: Record<Plan, string> = {
  RESOLVED_FULL: "echo fixed-main fixed-edge > bug.txt",
  RESOLVED_PARTIAL: "echo fixed-main > bug.txt",
  RESOLVED_NO: "cat bug.txt",
};

const loadBefore = loadavg()[0];
const dir = tempDir("harness-bench-graded-");
makeMinimalRootfs(join(dir, "envs", "base"));

// The repository: bug.txt says "broken"; the test_patch adds the runner the instance is graded by.
const repo = join(dir, "django", "django");
mkdirSync(join(repo, "tests"), { recursive: true });
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, encoding: "utf8" });
git("init", "-q");
writeFileSync(join(repo, "bug.txt"), "broken\n");
git("add", ".");
git("commit", "-qm", "the bug");
const baseCommit = git("rev-parse", "HEAD").trim();
const test = (name: string) => `test_${name} (bugs.tests.BugTests)`;
writeFileSync(
  join(repo, "tests", "runtests.sh"),
  [
    `grep -q "${ROOTFS_MARKER.text}" ${ROOTFS_MARKER.path} || { echo "not in the rootfs"; exit 1; }`,
    `echo "${test("existing")} ... ok"`,
    "for name in main edge; do",
    `  if grep -q "fixed-$name" bug.txt; then echo "test_$name (bugs.tests.BugTests) ... ok"; else echo "test_$name (bugs.tests.BugTests) ... FAIL"; fi`,
    "done",
    "",
  ].join("\n"),
);
git("add", "-N", "tests/runtests.sh");
const testPatch = git("diff");
git("rm", "-q", "--cached", "tests/runtests.sh");
rmSync(join(repo, "tests"), { recursive: true });
git("status", "--porcelain") === "" || assert.fail("the repository is not clean");

const instances = Array.from({ length: TASKS }, (_, index) => ({
  instance_id: `django__django-${10001 + index}`,
  repo: "django/django",
  base_commit: baseCommit,
  problem_statement: `Instance ${index + 1}: bug.txt says broken.`,
  test_patch: testPatch,
  FAIL_TO_PASS: JSON.stringify([test("main"), test("edge")]),
  PASS_TO_PASS: JSON.stringify([test("existing")]),
  test_command: "sh tests/runtests.sh",
  environment: { rootfs: "envs/base" },
}));
writeFileSync(join(dir, "tasks.jsonl"), `${instances.map((line) => JSON.stringify(line)).join("\n")}\n`);

let answered = 0;
const step: ScriptStep = (request) => {
  answered++;
  if (request.body.messages.some((message: { role: string }) => message.role === "tool"))
    return { reply: { text: "done" } };
  const n = Number(/Instance (\d+):/.exec(promptOf(request))?.[1]);
  return { reply: { toolCalls: [{ name: "bash", arguments: { command: FIX[planOf(n)] } }] } };
};
const fake = await startFakeLLM(Array.from({ length: TASKS * 10 }, () => step));
const env = pricedEnv({ HARNESS_QUEUE_KEY: TEST_QUEUE_KEY });
const port = await freePort();
const redis = startRedisOn(port);
await sleep(500);
const queue = `redis://127.0.0.1:${port}/bench-graded`;
const logs: string[] = [];
const start = cliStarter(dir, env, logs);
const fakeFlags = ["--provider", "openai", "--base-url", fake.baseUrl, "--model", "fake-model"];
// The repository is cloned from its folder beside the tasks file: the workers allow that folder.
const rootfsFlags = ["--allow-rootfs", join(dir, "envs"), "--allow-dir", join(dir, "django")];
const worker = (n: number) => start(workerArgs(queue, join(dir, `w${n}`), [...rootfsFlags, ...fakeFlags]));
const workers = [worker(1), worker(2)];
const peaks = workers.map(peakRssMb);
const started = Date.now();
const batch = start(["batch", "tasks.jsonl", "--queue", queue, "--out", "results.jsonl", "--model", "fake-model"]);
const batchPeak = peakRssMb(batch);
const out = join(dir, "results.jsonl");
await untilLines(out, Math.floor(TASKS / 2));
const restart = () => {
  const child = worker(1);
  peaks.push(peakRssMb(child));
  return child;
};
const { killedAt, code, endedAt } = await killOneWorkerAndFinish(workers, restart, batch);
const wall = endedAt - started;
redis.kill("SIGTERM");
await fake.close();

const lines = readLines(out);
const { finals, once, more } = finalsOf(lines);
const resolutionOf = (line: (typeof lines)[number]): string =>
  line.status === "ok" ? "RESOLVED_FULL" : (/RESOLVED_(PARTIAL|NO)/.exec(line.error ?? "")?.[0] ?? line.status);
const got = new Map<string, number>();
const planned = new Map<string, number>();
let unlike = 0;
for (const line of lines.filter((each) => each.status !== "crashed")) {
  const resolution = resolutionOf(line);
  got.set(resolution, (got.get(resolution) ?? 0) + 1);
  if (resolution !== planOf(Number(line.id.split("-").at(-1)) - 10000)) unlike++;
}
for (let n = 1; n <= TASKS; n++) planned.set(planOf(n), (planned.get(planOf(n)) ?? 0) + 1);
const recorded = lines.reduce((sum, line) => sum + (line.cost ?? 0), 0);
const statuses = new Map<string, number>();
for (const line of lines) statuses.set(line.status, (statuses.get(line.status) ?? 0) + 1);
const show = (counts: Map<string, number>) => [...counts].map(([name, n]) => `${n} ${name}`).join(", ");
const said = logs.join("");
console.log(
  `batch exit ${code}; ${TASKS} instances, two workers of 4, each instance in the rootfs; wall ${(wall / 1000).toFixed(1)} s`,
);
console.log(`load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`);
console.log(
  `worker SIGKILLed ${((killedAt - started) / 1000).toFixed(1)} s in (after ${Math.floor(TASKS / 2)} results)`,
);
console.log(`instances done exactly once: ${once} of ${TASKS} (with 2+ final lines: ${more})`);
console.log(`lines ${lines.length}: ${show(statuses)}`);
console.log(`graded: ${show(got)}; planned: ${show(planned)}; unlike the plan: ${unlike}`);
console.log(`model calls answered ${answered}, in the lines ${lines.reduce((sum, line) => sum + line.turns, 0)}`);
console.log(`spend recorded $${recorded.toFixed(5)} vs answered $${(answered * CALL_COST).toFixed(5)}`);
const workerPeaks = await Promise.all(peaks);
console.log(
  `peak RSS: batch ${(await batchPeak).toFixed(0)} MB, workers ${workerPeaks.map((mb) => mb.toFixed(0)).join(" / ")} MB; said: ${(said.match(/put back \d+ results and \d+ tries/g) ?? []).join("; ")}`,
);

assert.equal(code, 0, said.slice(-3000));
assert.equal(once, TASKS, "every instance has exactly one final line");
assert.equal(finals.size, TASKS);
assert.equal(unlike, 0, "every instance graded as planned");
assert.deepEqual(new Map([...got].sort()), new Map([...planned].sort()));
assert.ok(Math.abs(recorded - answered * CALL_COST) < 1e-9, "the spend recorded is the spend answered");
console.log("checked: resolutions as planned, one final line each, spend recorded = spend answered");
