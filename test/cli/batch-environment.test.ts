// A batch task in a root-filesystem environment (docs/batch.md#task-environments-environment):
// its setup, the agent's bash command and its test all run inside a minimal rootfs built by the
// test (test/support/minimal-rootfs.ts), see its marker and the repository at /testbed, and do
// not see the host's files; a task naming an image that cannot be had ends `error` saying why
// (no podman or docker answers, or the engine's own error: the image runs for real in
// batch-image-environment.test.ts). One batch run for all of it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pricedEnv, readLines } from "../support/batch-files.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { assertProbed, hostOnlyMissing, makeMinimalRootfs, PROBE_STEPS, probeTask } from "../support/minimal-rootfs.ts";
import { podmanEnv } from "../support/podman.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const hasPodman = spawnSync("sh", ["-c", "command -v podman"]).status === 0;

test("setup, the agent's commands and the test run inside the task's rootfs, not the host's /", {
  skip: needs("bwrap") || hostOnlyMissing,
}, async () => {
  const dir = tempDir();
  makeMinimalRootfs(join(dir, "rootfs"));
  const fake = await serve(PROBE_STEPS);
  const tasks = [
    probeTask("env", { rootfs: "rootfs" }),
    // No registry answers on localhost: podman fails at once (and no other image is pulled).
    { id: "image", prompt: "never asked", environment: { image: "localhost/harness-missing:1" } },
  ];
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const out = join(dir, "results.jsonl");
  const run = await runCli(["batch", "tasks.jsonl", "--concurrency", "1", "--out", out, ...fakeFlags(fake)], {
    cwd: dir,
    // Where podman is, its storage is this test's own, not the machine's.
    env: pricedEnv(hasPodman ? podmanEnv() : {}),
  });
  const results = new Map(readLines(out).map((line) => [line.id, line]));
  const env = results.get("env");
  assert.equal(env?.status, "ok", `${env?.error}\n${run.stderr}`);
  assert.equal(env?.testExitCode, 0);
  const seen = toolResultOf(fake, 1, "c1");
  assertProbed(seen);
  // The agent's commands start at the working copy's own path (the file tools' paths work in
  // them), which is the same folder as /testbed.
  assert.match(seen, new RegExp(`^${env?.workdir}$`, "m"));
  // Nothing the rootfs lacked was made in it: its folders are mounted read-only.
  assert.equal(existsSync(join(dir, "rootfs", "testbed", "from-setup.txt")), false);
  const image = results.get("image");
  assert.equal(image?.status, "error");
  assert.match(
    image?.error ?? "",
    /^environment: (environment\.image localhost\/harness-missing:1 needs podman or docker|(podman|docker) create localhost\/harness-missing:1: \S)/,
  );
});
