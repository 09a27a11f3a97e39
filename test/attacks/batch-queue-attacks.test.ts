// Attacks on `harness worker` by whoever can write to its Redis, as root and as nobody: jobs
// pushed straight into the queue (with BullMQ, as an attacker would) that point the worker's key
// at their own server, read the key from an unsandboxed setup, or run the task in the home
// folder where the model would write ~/.bashrc. Each is refused or confined; and a worker whose
// Redis went away still stops on SIGTERM. The canary HOME lives under /var/tmp, not /tmp: the
// sandbox's private /tmp would hide a failure there.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Queue } from "bullmq";
import { settled } from "../support/batch-files.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { skipAs } from "../support/identities.ts";
import { signedJob, startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const KEY = "sk-canary-worker-key-0123456789abcdef";
const PRIVATE_KEY = "CANARY PRIVATE KEY: never readable by a queued job";
const BASHRC = "# the user's own .bashrc\n";
/** Longest wait for the worker to start: far above the seconds it takes. */
const JOB_LIMIT_MS = 90_000;
const POLL_MS = 100;

const serve = fakeServerPerTest();
let home: string;
before(() => {
  home = mkdtempSync("/var/tmp/harness-worker-home-");
  chmodSync(home, 0o755);
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_rsa"), `${PRIVATE_KEY}\n`, { mode: 0o644 });
  writeFileSync(join(home, ".bashrc"), BASHRC, { mode: 0o666 });
});
after(() => rmSync(home, { recursive: true, force: true }));

/** An HTTP server that records each request's headers: where a stolen key would arrive. */
async function attackerServer(): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestEnd(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

/** A folder the worker's user may write (nobody's too). */
function sharedDir(prefix: string): string {
  const dir = tempDir(prefix);
  chmodSync(dir, 0o777);
  return dir;
}

/** A worker started with `args`, once it says it waits for tasks; `stop` sends it SIGTERM. */
async function waitingWorker(args: string[], env: NodeJS.ProcessEnv) {
  let workerProcess: ChildProcess | undefined;
  let stderr = "";
  const done = runCli(["worker", ...args], {
    env,
    onSpawn: (child) => {
      workerProcess = child;
      child.stderr?.on("data", (chunk) => (stderr += chunk));
    },
  });
  const deadline = Date.now() + JOB_LIMIT_MS;
  while (!stderr.includes("waiting for tasks") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  return { done, stop: () => workerProcess?.kill("SIGTERM"), pid: workerProcess?.pid };
}

for (const identity of ["root", "nobody"] as const) {
  test(`as ${identity}: jobs pushed into Redis cannot redirect the worker's key, read it in setup, or work in the home folder`, {
    skip: needs("redis-server", "bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const fake = await serve(Array.from({ length: 10 }, () => ({ reply: { text: "hello back" } })));
    const attacker = await attackerServer();
    const { port } = await startRedis();
    const name = `attack-${identity}`;
    const queue = new Queue(name, { connection: { host: "127.0.0.1", port, maxRetriesPerRequest: null } });
    onTestEnd(() => queue.close());
    const env = cleanEnv({ HOME: home, OPENAI_API_KEY: KEY });
    chmodSync(env.HARNESS_HOME as string, 0o777);
    const workdir = sharedDir("harness-worker-copies-");
    const wrap = identity === "nobody" ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : [];
    let workerProcess: ChildProcess | undefined;
    const worker = runCli(
      ["worker", "--queue", `redis://127.0.0.1:${port}/${name}`, "--workdir", workdir, ...fakeFlags(fake)],
      { env, wrap, onSpawn: (child) => (workerProcess = child) },
    );

    const spy = 'env > env.txt; cat $HOME/.ssh/id_rsa > key.txt 2>&1; echo "[$OPENAI_API_KEY]" > key-var.txt';
    const jobs: Array<[string, unknown]> = [
      // The old job format: the batch's settings, base URL included, travelled with the task.
      ["old-format", { task: { id: "steal", prompt: "hi" }, defaults: { baseUrl: attacker.url } }],
      [
        "base-url",
        { runId: "r1", attempt: 1, task: { id: "steal2", prompt: "hi" }, request: { baseUrl: attacker.url } },
      ],
      [
        "provider",
        { runId: "r1", attempt: 1, task: { id: "steal3", prompt: "hi", provider: "attacker" }, request: {} },
      ],
      ["model", { runId: "r1", attempt: 1, task: { id: "steal4", prompt: "hi" }, request: { model: "gpt-5-pro" } }],
      [
        "home",
        { runId: "r1", attempt: 1, task: { id: "bashrc", prompt: "append to ~/.bashrc", cwd: home }, request: {} },
      ],
      ["root", { runId: "r1", attempt: 1, task: { id: "root", prompt: "hi", cwd: "/" }, request: {} }],
      [
        "spy",
        {
          runId: "r1",
          attempt: 1,
          task: { id: "spy", prompt: "hi", setup: spy, test: "env > test-env.txt" },
          request: {},
        },
      ],
    ];
    // Signed with the queue's key: an insider's jobs, which the worker's policy still refuses.
    for (const [jobId, data] of jobs)
      await queue.add("task", signedJob(`${identity}-${jobId}`, data as object), { jobId: `${identity}-${jobId}` });

    const outcomes = new Map<string, Awaited<ReturnType<typeof settled>>>();
    for (const [jobId] of jobs) outcomes.set(jobId, await settled(queue, `${identity}-${jobId}`));
    for (const jobId of ["old-format", "base-url", "provider", "model", "home", "root"])
      assert.equal(outcomes.get(jobId)?.state, "failed", `${jobId}: refused`);
    assert.match(outcomes.get("old-format")?.reason ?? "", /^refused by the worker: not a valid job: .*defaults/);
    assert.match(outcomes.get("base-url")?.reason ?? "", /^refused by the worker: not a valid job: .*baseUrl/);
    assert.match(outcomes.get("provider")?.reason ?? "", /provider "attacker" is not this worker's/);
    assert.match(outcomes.get("model")?.reason ?? "", /model "gpt-5-pro" is not on this worker's --allow-models/);
    assert.match(outcomes.get("home")?.reason ?? "", /cwd .* holds your home folder: .*: no task runs there/);
    assert.match(outcomes.get("root")?.reason ?? "", /cwd \/ holds your home folder/);
    assert.deepEqual(attacker.seen, [], "no request, so no Authorization header, reached the attacker");
    assert.equal(readFileSync(join(home, ".bashrc"), "utf8"), BASHRC);

    const spied = outcomes.get("spy");
    assert.equal(spied?.state, "completed", spied?.reason);
    assert.equal(spied?.value?.status, "ok", spied?.value?.error);
    const copy = spied?.value?.workdir as string;
    for (const file of ["env.txt", "key.txt", "key-var.txt", "test-env.txt"]) {
      const text = readFileSync(join(copy, file), "utf8");
      assert.doesNotMatch(text, new RegExp(KEY), `${file}: no key in setup or test`);
      assert.doesNotMatch(text, /CANARY PRIVATE KEY/, `${file}: ~/.ssh is hidden from setup and test`);
    }
    assert.equal(readFileSync(join(copy, "key-var.txt"), "utf8"), "[]\n");
    assert.equal(fake.requests.length, 1, "the one valid job ran, on the worker's own server");

    // setpriv execs the worker: the pid is the worker's, whoever it runs as.
    workerProcess?.kill("SIGTERM");
    const stopped = await worker;
    assert.equal(stopped.code, 0, stopped.stderr);
  });
}

test("a worker whose Redis went away still stops on SIGTERM", { skip: needs("redis-server") }, async () => {
  const redis = await startRedis();
  const worker = await waitingWorker(
    ["--queue", `redis://127.0.0.1:${redis.port}/gone`, "--provider", "openai"],
    cleanEnv({ OPENAI_API_KEY: KEY }),
  );
  redis.process.kill("SIGKILL");
  await new Promise((resolve) => redis.process.once("exit", resolve));
  worker.stop();
  const stopped = await worker.done;
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stderr, /worker: stopping; running tasks go back to the queue/);
});

test("a Redis password never reaches argv: refused in the URL, read from the environment or a file", {
  skip: needs("redis-server"),
}, async () => {
  const redis = await startRedis(["--requirepass", "s3cret-pass"]);
  const env = cleanEnv({ OPENAI_API_KEY: KEY });
  const inUrl = await runCli(
    ["worker", "--queue", `redis://:s3cret-pass@127.0.0.1:${redis.port}/locked`, "--provider", "openai"],
    { env },
  );
  assert.equal(inUrl.code, 2, inUrl.stderr);
  assert.match(inUrl.stderr, /a password in the URL is visible .*HARNESS_QUEUE_PASSWORD or --queue-password-file/);
  const refused = await runCli(
    ["worker", "--queue", `redis://127.0.0.1:${redis.port}/locked`, "--provider", "openai"],
    { env },
  );
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /Redis at redis:\/\/127\.0\.0\.1:\d+\/locked refused us: NOAUTH.*; give its password in HARNESS_QUEUE_PASSWORD or --queue-password-file/,
  );
  const passwordFile = join(tempDir("queue-secret-"), "redis-password");
  writeFileSync(passwordFile, "s3cret-pass\n", { mode: 0o600 });
  for (const [args, workerEnv] of [
    [[], { ...env, HARNESS_QUEUE_PASSWORD: "s3cret-pass" }],
    [["--queue-password-file", passwordFile], env],
  ] as const) {
    const worker = await waitingWorker(
      ["--queue", `redis://127.0.0.1:${redis.port}/locked`, "--provider", "openai", ...args],
      workerEnv,
    );
    // What every user of the machine sees of the running worker (ps reads the same file).
    const cmdline = readFileSync(`/proc/${worker.pid}/cmdline`, "utf8");
    worker.stop();
    const stopped = await worker.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(cmdline, /worker\0--queue\0redis:\/\/127\.0\.0\.1:\d+\/locked/);
    assert.doesNotMatch(cmdline, /s3cret-pass/);
    assert.match(stopped.stderr, /waiting for tasks on redis:\/\/127\.0\.0\.1:\d+\/locked /);
    assert.doesNotMatch(stopped.stderr, /s3cret-pass/);
  }
});
