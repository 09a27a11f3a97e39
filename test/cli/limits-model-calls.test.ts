// A broken or hostile model server cannot hold a run or fill memory: a huge or endless reply is
// cut at the reply cap (and not retried), a silent server at the idle timeout (with a notice
// while it waits), a trickling one at the request timeout. Through the built CLI against the
// fake server; memory is the child's peak RSS, read from /proc.
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { needsProc, peakRssMb } from "../support/peak-rss.ts";

const serve = fakeServerPerTest();

/** About 8 KB of prose per streamed event. */
const PIECE = "lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(140);
const MB = 1_000_000;

function sessionBytes(env: NodeJS.ProcessEnv): number {
  const dir = join(env.HARNESS_HOME as string, "sessions");
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

test("a 100 MB reply is cut at the 16 MB reply cap with a clear error, not retried, in bounded memory", {
  skip: needsProc,
}, async () => {
  const fake = await serve([{ flood: { piece: PIECE, bytes: 100 * MB } }]);
  const env = cleanEnv();
  let peak: Promise<number> = Promise.resolve(0);
  const result = await runCli([...fakeFlags(fake), "--output", "json", "-p", "write a lot"], {
    env,
    onSpawn: (child) => (peak = peakRssMb(child)),
  });
  const peakMb = await peak;
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /^error: the reply from openai \(http:\/\/127\.0\.0\.1:\d+\/v1\) passed 16\.0 MB, the most one reply may have; it was cut off and not retried/m,
  );
  const done = JSON.parse(result.stdout);
  assert.equal(done.type, "done");
  assert.equal(done.reason, "error");
  assert.match(done.error, /passed 16\.0 MB/);
  assert.equal(fake.requests.length, 1, "not retried");
  assert.ok(sessionBytes(env) < MB, `the session holds ${sessionBytes(env)} bytes`);
  console.log(`peak RSS for a 100 MB reply: ${peakMb.toFixed(0)} MB`);
  assert.ok(peakMb > 0 && peakMb < 300, `peak RSS ${peakMb.toFixed(0)} MB`);
});

test("an endless stream stops at a configured reply cap (HARNESS_MAX_REPLY_BYTES)", async () => {
  const fake = await serve([{ flood: { piece: PIECE, bytes: Number.MAX_SAFE_INTEGER } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "go on forever"], {
    env: cleanEnv({ HARNESS_MAX_REPLY_BYTES: String(2 * MB) }),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /passed 2\.0 MB, the most one reply may have/);
  assert.equal(fake.requests.length, 1, "not retried");
});

test("a server that stalls mid-reply is cut at --idle-timeout, with a notice on stderr while it waits", async () => {
  const fake = await serve([{ stall: { text: "the start of a reply that never ends" }, afterEvents: 3 }]);
  const started = Date.now();
  const result = await runCli([...fakeFlags(fake), "--idle-timeout", "2", "-p", "hi"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /^harness: waiting for openai \(.*\): nothing for [\d.]+s; giving up at 2\.0s of silence$/m,
  );
  assert.match(
    result.stderr,
    /^(harness|error): openai \(.*\) sent nothing for 2\.0s \(the idle timeout; raise it with --idle-timeout or HARNESS_IDLE_TIMEOUT\)$/m,
  );
  assert.equal(fake.requests.length, 1, "not retried");
  assert.ok(Date.now() - started < 30_000, "the run ended long before undici's own 300 s");
});

test("a server that never answers is cut at HARNESS_IDLE_TIMEOUT", async () => {
  const fake = await serve([{ hang: true }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env: cleanEnv({ HARNESS_IDLE_TIMEOUT: "1.5" }) });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /sent nothing for 1\.5s \(the idle timeout/);
  assert.equal(fake.requests.length, 1, "not retried");
});

test("a reply that trickles a byte at a time is cut at config.json requestTimeout; bad values are usage errors", async () => {
  const fake = await serve([{ trickle: { text: "slow ".repeat(400) }, bytesPerWrite: 1, intervalMs: 20 }]);
  const env = cleanEnv();
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify({ requestTimeout: 2 }));
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /did not finish its reply within 2\.0s \(the request timeout; raise it with --request-timeout or HARNESS_REQUEST_TIMEOUT\)/,
  );
  assert.doesNotMatch(result.stderr, /waiting for/, "a trickle is not silence");
  assert.equal(fake.requests.length, 1, "not retried");

  const bad = await runCli([...fakeFlags(fake), "--request-timeout", "soon", "-p", "hi"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^harness: --request-timeout takes a number of seconds above 0\n/);
});
