// A batch task in a root-filesystem environment (docs/batch.md#task-environments-environment):
// its setup, the agent's bash command and its test all run inside a minimal rootfs built by the
// test (test/support/minimal-rootfs.ts), see its marker and the repository at /testbed, and do
// not see the host's files; a task naming an image where no podman or docker answers ends
// `error` saying so. One batch run for all of it.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { containerEngine } from "../../src/batch/environment/task-environment.ts";
import { pricedEnv, readLines } from "../support/batch-files.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { makeMinimalRootfs, ROOTFS_MARKER } from "../support/minimal-rootfs.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
/** A file every Debian-like host has and the minimal rootfs has not. */
const HOST_ONLY = "/etc/os-release";

test("setup, the agent's commands and the test run inside the task's rootfs, not the host's /", {
  skip: needs("bwrap") || (existsSync(HOST_ONLY) ? false : `${HOST_ONLY} missing on this host`),
}, async () => {
  const dir = tempDir();
  makeMinimalRootfs(join(dir, "rootfs"));
  const look = `cat ${ROOTFS_MARKER.path}; pwd; test -e ${HOST_ONLY} && echo HOST-VISIBLE; test -f /testbed/from-setup.txt && echo SAME-FOLDER; echo done`;
  const fake = await serve([
    { reply: { toolCalls: [{ id: "c1", name: "bash", arguments: { command: look } }] } },
    { reply: { text: "looked" } },
  ]);
  const inRootfs = `grep -q "${ROOTFS_MARKER.text}" ${ROOTFS_MARKER.path} && test ! -e ${HOST_ONLY} && test "$(pwd)" = /testbed`;
  const tasks = [
    {
      id: "env",
      prompt: "look around",
      environment: { rootfs: "rootfs" },
      setup: `${inRootfs} && echo set > from-setup.txt`,
      test: `${inRootfs} && test -f from-setup.txt`,
    },
    { id: "image", prompt: "never asked", environment: { image: "docker.io/library/debian:bookworm" } },
  ];
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const out = join(dir, "results.jsonl");
  const run = await runCli(["batch", "tasks.jsonl", "--concurrency", "1", "--out", out, ...fakeFlags(fake)], {
    cwd: dir,
    env: pricedEnv(),
  });
  const results = new Map(readLines(out).map((line) => [line.id, line]));
  const env = results.get("env");
  assert.equal(env?.status, "ok", `${env?.error}\n${run.stderr}`);
  assert.equal(env?.testExitCode, 0);
  const seen = toolResultOf(fake, 1, "c1");
  assert.match(seen, new RegExp(ROOTFS_MARKER.text));
  // The agent's commands start at the working copy's own path (the file tools' paths work in
  // them), which is the same folder as /testbed.
  assert.match(seen, new RegExp(`^${env?.workdir}$`, "m"));
  assert.match(seen, /SAME-FOLDER/);
  assert.doesNotMatch(seen, /HOST-VISIBLE/);
  assert.match(seen, /done/);
  // Nothing the rootfs lacked was made in it: its folders are mounted read-only.
  assert.equal(existsSync(join(dir, "rootfs", "testbed", "from-setup.txt")), false);
  const image = results.get("image");
  if (!containerEngine()) {
    assert.equal(image?.status, "error");
    assert.match(image?.error ?? "", /environment\.image .* needs podman or docker/);
  }
});
