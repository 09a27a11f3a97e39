// `harness batch clean --worker-dir`: removes the copies a real worker left for jobs whose result
// its journal stored, keeps the journal and trajectories, keeps a running job's copy, and follows
// no symbolic link nor any path a forged journal record names.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeRepo, pricedEnv } from "../support/batch-files.ts";
import { fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { batchOnOneWorker } from "../support/queue-run.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("batch clean --worker-dir: dry run lists, clean removes delivered copies only, follows no link", {
  skip: needs("redis-server"),
}, async (t) => {
  const fake = await serve([{ reply: { text: "done" } }]);
  const dir = tempDir();
  makeRepo(dir);
  const { results, batch } = await batchOnOneWorker({
    dir,
    tasks: [{ id: "a", prompt: "task a", repo: join(dir, "repo") }],
    fake,
    workerFlags: ["--allow-dir", dir],
  });
  assert.equal(batch.code, 0, batch.stderr);
  const work = join(dir, "work");
  const runDir = join(work, results.get("a")?.runId ?? "");
  const copy = join(runDir, "a");
  assert.ok(existsSync(join(copy, "f.txt")), "the worker's copy");
  const journal = join(work, ".harness-journal");
  const journalFiles = readdirSync(journal).sort();
  assert.ok(
    journalFiles.some((name) => name.endsWith(".done.json")),
    journalFiles.join(", "),
  );

  // Planted: a link among the copies to a canary outside (under /var/tmp), a record of a job with
  // a stored result naming that link and one naming the canary's folder itself, and a running
  // job's copy (a record, no result).
  const outside = mkdtempSync("/var/tmp/harness-wclean-canary-");
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, "canary"), "keep me\n");
  symlinkSync(outside, join(runDir, "evil"));
  for (const [job, workdir] of [
    ["x", join(runDir, "evil")],
    ["y", outside],
  ]) {
    writeFileSync(join(journal, `${job}.try-1.json`), JSON.stringify({ id: job, attempt: 1, workdir }));
    writeFileSync(join(journal, `${job}.done.json`), "{}");
  }
  mkdirSync(join(runDir, "b"));
  writeFileSync(join(runDir, "b", "work.txt"), "in progress\n");
  writeFileSync(join(journal, "z.try-1.json"), JSON.stringify({ id: "b", attempt: 1, workdir: join(runDir, "b") }));
  const journalBefore = readdirSync(journal).sort();
  const trajectories = readdirSync(join(work, "trajectories"), { recursive: true }).sort();
  assert.ok(trajectories.length > 0, "the worker wrote trajectories");
  const clean = (...args: string[]) =>
    runCli(["batch", "clean", "--worker-dir", work, ...args], { env: pricedEnv(), cwd: dir });

  const dry = await clean("--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  const listed = [...dry.stdout.matchAll(/^would remove (\S+) \((\d+) bytes/gm)];
  assert.deepEqual(
    listed.map((match) => match[1]),
    [copy],
  );
  assert.ok(Number(listed[0]?.[2]) > 0, "with its size");
  assert.match(dry.stdout, /^kept .*\/evil: a symbolic link; left alone/m);
  assert.match(dry.stdout, /^kept .*\/b: job z has no stored result yet/m);
  assert.match(dry.stdout, /nothing was removed \(--dry-run\)/);
  assert.ok(existsSync(join(copy, "f.txt")), "the dry run removed nothing");

  const done = await clean();
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, /^removed 1 working copy, freed \d+ bytes/m);
  assert.ok(!existsSync(copy), "the delivered job's copy is gone");
  assert.ok(existsSync(join(runDir, "b", "work.txt")), "the running job's copy stays");
  assert.deepEqual(readdirSync(journal).sort(), journalBefore, "the journal stays whole");
  assert.deepEqual(readdirSync(join(work, "trajectories"), { recursive: true }).sort(), trajectories);
  assert.deepEqual(readdirSync(outside), ["canary"], "nothing outside was removed");
  assert.ok(existsSync(join(runDir, "evil")), "the link stays");

  const again = await clean();
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /^removed/m);
  assert.match(again.stdout, /nothing to clean in /);

  const notWorker = await runCli(["batch", "clean", "--worker-dir", dir], { env: pricedEnv(), cwd: dir });
  assert.equal(notWorker.code, 2);
  assert.match(notWorker.stderr, /not a worker's folder/);
});
