// `harness batch clean`: removes the working copies of a results file's finished runs, with a dry
// run first; refuses while a batch writes the file; keeps a copy whose attempt the next run still
// records; never follows a symbolic link planted among the copies.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { makeRepo, pricedEnv, readLines } from "../support/batch-files.ts";
import { fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("batch clean: dry run lists, clean removes finished copies, keeps a recorded one, follows no link", async (t) => {
  const fake = await serve(Array.from({ length: 3 }, () => ({ reply: { text: "done" } })));
  const dir = tempDir();
  makeRepo(dir);
  const tasks = ["a", "b", "c"].map((id) => JSON.stringify({ id, prompt: `task ${id}`, repo: "repo" }));
  writeFileSync(join(dir, "tasks.jsonl"), tasks.join("\n"));
  const env = pricedEnv();
  const batch = await runCli(["batch", "tasks.jsonl", "--out", "results.jsonl", ...fakeFlags(fake)], { env, cwd: dir });
  assert.equal(batch.code, 0, batch.stderr);
  const [line] = readLines(join(dir, "results.jsonl"));
  const runDir = join(dir, "results.work", line?.runId ?? "");
  const copy = (id: string) => join(runDir, id);
  assert.ok(
    ["a", "b", "c"].every((id) => existsSync(join(copy(id), "f.txt"))),
    "three working copies",
  );

  // An attacker's link among the copies, to a folder outside with a canary (under /var/tmp, not /tmp).
  const outside = mkdtempSync("/var/tmp/harness-clean-canary-");
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, "canary"), "keep me\n");
  symlinkSync(outside, join(runDir, "a.2"));
  symlinkSync(join(outside, "canary"), join(runDir, "z.diff-index"));
  // Task c's attempt as a batch killed mid-run leaves it: its record names its copy.
  const records = join(dir, "results.attempts", line?.runId ?? "");
  mkdirSync(records, { recursive: true });
  writeFileSync(join(records, "c.2.json"), JSON.stringify({ id: "c", attempt: 2, workdir: copy("c") }));
  const clean = (...args: string[]) => runCli(["batch", "clean", "--out", "results.jsonl", ...args], { env, cwd: dir });

  // While a batch writes the results file, nothing is judged: its lock's holder is alive (this process).
  const lock = join(dir, "results.jsonl.lock.1");
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
  const refused = await clean();
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /not cleaned: .*being written by another batch \(pid \d+/);
  rmSync(lock);

  const dry = await clean("--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  const listed = [...dry.stdout.matchAll(/^would remove (\S+) \((\d+) bytes/gm)];
  assert.deepEqual(listed.map((match) => match[1]).sort(), [copy("a"), copy("b")]);
  assert.ok(
    listed.every((match) => Number(match[2]) > 0),
    "each with its size",
  );
  assert.match(dry.stdout, /^kept .*a\.2: a symbolic link; left alone/m);
  assert.match(dry.stdout, /^kept .*\/c: its attempt is recorded by the next run/m);
  assert.match(dry.stdout, /would remove 2 working copies, freeing .*; nothing was removed \(--dry-run\)/);
  assert.ok(
    ["a", "b", "c"].every((id) => existsSync(join(copy(id), "f.txt"))),
    "the dry run removed nothing",
  );

  const done = await clean();
  assert.equal(done.code, 0, done.stderr);
  const freed = Number(/^removed 2 working copies, freed (\d+) bytes/m.exec(done.stdout)?.[1]);
  const sizes = listed.map((match) => Number(match[2]));
  assert.equal(freed, sizes[0] + sizes[1], "freed what the dry run listed");
  assert.ok(!existsSync(copy("a")) && !existsSync(copy("b")), "the finished copies are gone");
  assert.ok(existsSync(join(copy("c"), "f.txt")), "the recorded attempt's copy stays");
  assert.deepEqual(readdirSync(outside), ["canary"], "nothing outside was removed through the links");
  assert.ok(existsSync(join(runDir, "a.2")) && existsSync(join(runDir, "z.diff-index")), "the links stay too");
  assert.equal(readLines(join(dir, "results.jsonl")).length, 3, "the results stay");

  const again = await clean();
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /^removed/m);
  assert.match(again.stdout, /nothing to clean in /);
});
