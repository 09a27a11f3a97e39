// Jobs pushed straight into a worker's Redis (with BullMQ, signed with the queue's key: an
// insider) whose task environment names a folder of the worker's machine as its root filesystem,
// to have it bound into the sandbox: the host's `/`, the worker's HOME, a symlink in the allowed
// folder that leads out of it, `..` out of it, a relative path; or an image when the worker takes
// none, or an engine option as an image. The worker takes a rootfs only by its real path inside
// an --allow-rootfs folder, and an image only on --allow-images (docs/batch.md#environments-on-a-queue):
// every other job fails with the reason, nothing of it runs and nothing of the host is read; the
// allowed rootfs still runs. Then the worker will not start with an --allow-rootfs that is `/`
// or overlaps its --workdir. As root and as nobody; the canary HOME is under /var/tmp.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Queue } from "bullmq";
import { settled } from "../support/batch-files.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { makeMinimalRootfs } from "../support/minimal-rootfs.ts";
import { signedJob, startRedis } from "../support/redis-server.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();
const CANARY = "CANARY-rootfs-never-bound-3f9a";

for (const identity of IDENTITIES) {
  test(`as ${identity}: a worker takes a job's rootfs only inside --allow-rootfs, and an image only on --allow-images`, {
    skip: needs("redis-server", "bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-queue-env-");
    const secret = join(home, "project", "secret.txt");
    mkdirSync(join(home, "project"));
    writeFileSync(secret, `${CANARY}\n`, { mode: 0o644 });
    const allowed = join(home, "envs");
    makeMinimalRootfs(join(allowed, "base"));
    symlinkSync(join(home, "project"), join(allowed, "out"));
    handTo(identity, home);
    const leak = join(home, "leak.txt");
    // Each job the worker runs: the model tries the canary, then answers.
    const step: ScriptStep = (request) =>
      request.body.messages.some((message: { role: string }) => message.role === "tool")
        ? { reply: { text: "done" } }
        : { reply: { toolCalls: [{ name: "bash", arguments: { command: `cat ${secret}; true` } }] } };
    const fake = await serve(Array.from({ length: 12 }, () => step));
    const { port } = await startRedis();
    const name = `env-${identity}`;
    const queue = new Queue(name, { connection: { host: "127.0.0.1", port, maxRetriesPerRequest: null } });
    onTestEnd(() => queue.close());
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness"), OPENAI_API_KEY: "k" });
    const flags = ["--workdir", join(home, "work"), "--allow-rootfs", allowed, ...fakeFlags(fake)];
    let worker: ChildProcess | undefined;
    const done = runCli(["worker", "--queue", `redis://127.0.0.1:${port}/${name}`, ...flags], {
      env,
      cwd: home,
      wrap: runAs(identity),
      onSpawn: (child) => (worker = child),
    });
    const job = (id: string, environment: object) =>
      signedJob(`${identity}-${id}`, {
        runId: "r1",
        attempt: 1,
        task: {
          id,
          prompt: "read the secret",
          environment,
          setup: `cat ${secret} > ${leak}; cat secret.txt > ${leak}`,
        },
        request: {},
      });
    const refused: Array<[string, object, RegExp]> = [
      ["root", { rootfs: "/" }, /environment: rootfs \/ is the host's \//],
      ["home", { rootfs: home }, /environment: rootfs \S+ holds your home folder.*: no rootfs is taken from there/],
      [
        "link-out",
        { rootfs: join(allowed, "out") },
        /environment: rootfs \S+\/envs\/out \(\S+\/project\) is not inside a folder this worker allows \(--allow-rootfs \S+\/envs\)/,
      ],
      [
        "dot-dot",
        { rootfs: `${allowed}/../project` },
        /environment: rootfs \S+\/envs\/\.\.\/project \(\S+\/project\) is not inside a folder this worker allows/,
      ],
      ["dot-dot-home", { rootfs: `${allowed}/base/../..` }, /environment: rootfs \S+ \(\S+\) holds your home folder/],
      ["relative", { rootfs: "../project" }, /not a valid job: .*environment\.rootfs.*must be absolute/],
      [
        "image",
        { image: "localhost/harness-test:1" },
        /environment: image localhost\/harness-test:1: this worker takes no images/,
      ],
      ["option", { image: "--privileged" }, /not a valid job: .*environment\.image.*must be an image reference/],
    ];
    for (const [id, environment] of refused)
      await queue.add("task", job(id, environment), { jobId: `${identity}-${id}` });
    await queue.add(
      "task",
      signedJob(`${identity}-allowed`, {
        runId: "r1",
        attempt: 1,
        task: {
          id: "allowed",
          prompt: "read the secret",
          environment: { rootfs: join(allowed, "base") },
          setup: `cat ${secret} > stolen.txt; true`,
          test: `test ! -s stolen.txt && ! cat ${secret}`,
        },
        request: {},
      }),
      { jobId: `${identity}-allowed` },
    );
    for (const [id, , why] of refused) {
      const outcome = await settled(queue, `${identity}-${id}`);
      assert.equal(outcome.state, "failed", `${id}: refused`);
      assert.match(outcome.reason ?? "", /^refused by the worker: /, id);
      assert.match(outcome.reason ?? "", why, id);
    }
    const allowedOutcome = await settled(queue, `${identity}-allowed`);
    assert.equal(allowedOutcome.value?.status, "ok", `${allowedOutcome.reason} ${allowedOutcome.value?.error}`);
    assert.equal(allowedOutcome.value?.testExitCode, 0, "the canary was not readable inside the rootfs");
    assert.doesNotMatch(JSON.stringify(allowedOutcome.value), new RegExp(CANARY));
    assert.equal(fake.requests.length, 2, "only the allowed job called the model (a tool call, then its result)");
    for (const request of fake.requests) assert.doesNotMatch(JSON.stringify(request.body), new RegExp(CANARY));
    assert.equal(existsSync(leak), false, "no setup of a refused job ran");
    worker?.kill("SIGTERM");
    const stopped = await done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, new RegExp(`refused ${refused.length} jobs this worker's policy does not allow`));

    // The worker's own flags: no rootfs folder that is `/`, home, or where jobs write.
    const queueFlags = ["--queue", "redis://127.0.0.1:1/never", "--provider", "openai"];
    for (const [args, why] of [
      [["--allow-rootfs", "/"], /--allow-rootfs \/ holds your home folder.*: no rootfs may be taken from there/],
      [["--allow-rootfs", home], /--allow-rootfs \S+ holds your home folder/],
      [
        ["--allow-rootfs", allowed, "--workdir", join(allowed, "work")],
        /--allow-rootfs \S+\/envs overlaps \S+\/envs\/work, where jobs write/,
      ],
      [
        ["--allow-rootfs", allowed, "--allow-dir", join(home, "envs", "base")],
        /--allow-rootfs \S+\/envs overlaps \S+\/envs/,
      ],
    ] as const) {
      const run = await runCli(["worker", ...queueFlags, ...args], { env, cwd: home, wrap: runAs(identity) });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, why);
    }
  });
}
