// A batch task whose environment is an OCI image (docs/batch.md#task-environments-environment),
// for real through podman with no daemon and no registry: the image is imported from the minimal
// rootfs (test/support/podman.ts: a storage of the test's own), unpacked once for the two tasks
// naming it (podman create, export, rm), and each task's setup, the agent's bash command and its
// test run inside it; no container is left behind. On a queue, a worker started with
// --allow-images 'localhost/*' runs such a task, and refuses one whose image is not on its list
// (nothing pulled).
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pricedEnv, readLines } from "../support/batch-files.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { assertProbed, hostOnlyMissing, makeMinimalRootfs, PROBE_STEPS, probeTask } from "../support/minimal-rootfs.ts";
import { importImage, podmanContainers, podmanEnv } from "../support/podman.ts";
import { batchOnOneWorker } from "../support/queue-run.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const IMAGE = "localhost/harness-test:1";

test("tasks naming an image run inside it: unpacked once with podman, no daemon, no container left", {
  skip: needs("podman", "bwrap") || hostOnlyMissing,
}, async () => {
  const dir = tempDir();
  const podman = podmanEnv();
  importImage(makeMinimalRootfs(join(dir, "rootfs")), IMAGE, podman);
  const fake = await serve([...PROBE_STEPS, ...PROBE_STEPS]);
  const tasks = [probeTask("first", { image: IMAGE }), probeTask("second", { image: IMAGE })];
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const out = join(dir, "results.jsonl");
  const work = join(dir, "work");
  const run = await runCli(
    ["batch", "tasks.jsonl", "--concurrency", "1", "--workdir", work, "--out", out, ...fakeFlags(fake)],
    { cwd: dir, env: pricedEnv(podman) },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = new Map(readLines(out).map((line) => [line.id, line]));
  for (const [id, request] of [
    ["first", 1],
    ["second", 3],
  ] as const) {
    const result = results.get(id);
    assert.equal(result?.status, "ok", `${id}: ${result?.error}\n${run.stderr}`);
    assert.equal(result?.testExitCode, 0, id);
    assertProbed(toolResultOf(fake, request, "c1"));
  }
  // One folder for the image (named for it, with a hash), none half made, and no container kept.
  assert.deepEqual(readdirSync(join(work, "environments")), [
    readdirSync(join(work, "environments")).find((name) => /^localhost_harness-test_1-[0-9a-f]{12}$/.test(name)),
  ]);
  assert.equal(podmanContainers(podman), "");
});

test("on a queue, a worker with --allow-images runs a task in an allowed image and refuses another", {
  skip: needs("podman", "bwrap", "redis-server") || hostOnlyMissing,
}, async () => {
  const dir = tempDir();
  const podman = podmanEnv();
  importImage(makeMinimalRootfs(join(dir, "rootfs")), IMAGE, podman);
  const fake = await serve(PROBE_STEPS);
  const tasks = [
    probeTask("allowed", { image: IMAGE }),
    { id: "other", prompt: "never asked", environment: { image: "docker.io/library/debian:bookworm" } },
  ];
  const run = await batchOnOneWorker({
    dir,
    tasks,
    fake,
    workerFlags: ["--allow-images", "localhost/*"],
    workerEnv: podman,
  });
  const { results, batch, worker: stopped } = run;
  const allowed = results.get("allowed");
  assert.equal(allowed?.status, "ok", `${allowed?.error}\n${batch.stderr}\nworker:\n${stopped.stderr}`);
  assert.equal(allowed?.testExitCode, 0);
  assertProbed(toolResultOf(fake, 1, "c1"));
  assert.match(
    results.get("other")?.error ?? "",
    /refused by the worker: environment: image docker\.io\/library\/debian:bookworm is not on this worker's --allow-images \(allowed: localhost\/\*\)/,
  );
  assert.equal(batch.code, 0, batch.stderr);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(podmanContainers(podman), "");
});
