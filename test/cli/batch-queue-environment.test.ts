// Task environments on the shared queue (docs/batch.md#environments-on-a-queue), against a real
// redis-server: a worker started with --allow-rootfs runs a task whose rootfs is inside that
// folder end to end (setup, the agent's bash command and the test inside the rootfs, graded by
// the test's exit code), and refuses a task whose rootfs is outside it and one naming an image
// (no --allow-images): each refusal is the task's error in the batch's results, and counted by
// the worker. One batch, one worker.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, tempDir, toolResultOf } from "../support/helpers.ts";
import { assertProbed, hostOnlyMissing, makeMinimalRootfs, PROBE_STEPS, probeTask } from "../support/minimal-rootfs.ts";
import { batchOnOneWorker } from "../support/queue-run.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("a worker with --allow-rootfs runs a queued task in its rootfs, and refuses a rootfs outside it and an image", {
  skip: needs("redis-server", "bwrap") || hostOnlyMissing,
}, async () => {
  const dir = tempDir();
  makeMinimalRootfs(join(dir, "envs", "base"));
  const fake = await serve(PROBE_STEPS);
  const tasks = [
    probeTask("env", { rootfs: "envs/base" }),
    // The tasks file's own folder: it holds the allowed one, and is not inside it.
    { id: "outside", prompt: "never asked", environment: { rootfs: "." }, setup: "echo ran > ran.txt" },
    { id: "image", prompt: "never asked", environment: { image: "localhost/harness-test:1" } },
  ];
  const run = await batchOnOneWorker({ dir, tasks, fake, workerFlags: ["--allow-rootfs", join(dir, "envs")] });
  const { results, batch, worker: stopped } = run;
  const env = results.get("env");
  assert.equal(env?.status, "ok", `${env?.error}\n${batch.stderr}\nworker:\n${stopped.stderr}`);
  assert.equal(env?.testExitCode, 0);
  assertProbed(toolResultOf(fake, 1, "c1"));
  assert.equal(fake.requests.length, 2, "only the allowed task called the model");

  const outside = results.get("outside");
  assert.equal(outside?.status, "error");
  assert.match(
    outside?.error ?? "",
    /refused by the worker: environment: rootfs \S+ is not inside a folder this worker allows \(--allow-rootfs \S+\/envs\)/,
  );
  assert.equal(existsSync(join(dir, "ran.txt")), false, "nothing of a refused job runs");
  const image = results.get("image");
  assert.equal(image?.status, "error");
  assert.match(
    image?.error ?? "",
    /refused by the worker: environment: image localhost\/harness-test:1: this worker takes no images \(it was started without --allow-images\)/,
  );
  // Every task has its result (a refusal is an `error`, as a task's own failure is).
  assert.equal(batch.code, 0, batch.stderr);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stderr, /refused 2 jobs this worker's policy does not allow/);
});
