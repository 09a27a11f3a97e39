// A cloned repository chooses what its AGENTS.md is: a link to /dev/zero (read until memory ran
// out), a FIFO nobody writes to (the start hung), a file of a gigabyte. Instruction files are
// read only when they are regular files, and only up to the cap. Through the built CLI against
// the fake server; memory is the child's peak RSS.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_INSTRUCTIONS_BYTES } from "../../src/core/system-prompt.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needsProc, peakRssMb } from "../support/peak-rss.ts";

const serve = fakeServerPerTest();

test("AGENTS.md as a link to /dev/zero, a FIFO or a 1 GB file: the start neither hangs nor fills memory", {
  skip: needsProc,
}, async () => {
  // repo/ (AGENTS.md -> /dev/zero, CLAUDE.md) / fifo/ (AGENTS.md is a FIFO) / huge/ (a 1 GB AGENTS.md)
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  symlinkSync("/dev/zero", join(repo, "AGENTS.md"));
  writeFileSync(join(repo, "CLAUDE.md"), "root rules: be kind\n");
  const cwd = join(repo, "fifo", "huge");
  mkdirSync(cwd, { recursive: true });
  execFileSync("mkfifo", [join(repo, "fifo", "AGENTS.md")]);
  const rule = "nearest rule: run the tests\n";
  writeFileSync(join(cwd, "AGENTS.md"), rule.repeat(Math.ceil((2 * MAX_INSTRUCTIONS_BYTES) / rule.length)));
  truncateSync(join(cwd, "AGENTS.md"), 1024 ** 3); // sparse: a gigabyte to read, no disk used

  const fake = await serve([{ reply: { text: "started" } }]);
  let peak: Promise<number> = Promise.resolve(0);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { cwd, onSpawn: (child) => (peak = peakRssMb(child)) });
  const peakMb = await peak;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "started\n");

  const system: string = fake.requests[0].body.messages[0].content;
  assert.match(
    system,
    /# Instructions from \.\.\/\.\.\/CLAUDE\.md\nroot rules: be kind\n/,
    "a folder whose AGENTS.md is not a file falls back to CLAUDE.md",
  );
  assert.doesNotMatch(system, /\0|fifo\/AGENTS\.md/, "neither /dev/zero nor the FIFO is read");
  assert.match(system, /# Instructions from AGENTS\.md\nnearest rule: run the tests\n/);
  assert.match(system, /\n\[cut: instruction files are capped at 32768 bytes\]$/);
  assert.ok(
    Buffer.byteLength(system) < MAX_INSTRUCTIONS_BYTES + 4096,
    `the system prompt has ${Buffer.byteLength(system)} bytes`,
  );
  console.log(`peak RSS with a 1 GB AGENTS.md: ${peakMb.toFixed(0)} MB`);
  assert.ok(peakMb > 0 && peakMb < 300, `peak RSS ${peakMb.toFixed(0)} MB`);
});
