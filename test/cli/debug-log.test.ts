// --debug and --debug-file: what harness did, a line each, with no key in it; the file is the user's alone.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const KEY = "sk-debug-canary-0123456789abcdefghij";

test("--debug-file logs requests, tool calls, hooks and settings read, keys redacted, mode 0600", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".harness"));
  writeFileSync(
    join(cwd, ".harness", "settings.json"),
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: `echo ${KEY} >&2` }] }] } }),
  );
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_ls", name: "bash", arguments: { command: `echo ${KEY}` } }] } },
    { reply: { text: "listed" } },
  ]);
  const log = join(tempDir(), "harness.log");
  const result = await runCli(["-y", "--trust", "--debug-file", log, ...fakeFlags(fake), "-p", "list"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: KEY }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /\[api\]/, "--debug-file writes to the file only");
  const text = readFileSync(log, "utf8");
  assert.equal((statSync(log).mode & 0o777).toString(8), "600");
  assert.match(text, /\[start\] harness \S+ on Node v\d+/);
  assert.match(text, /\[settings\] reading .*\.harness\/settings\.json \(harness, the project's\)/);
  assert.match(text, /\[api\] POST http:\/\/127\.0\.0\.1:\d+\/\S* -> 200 in \d+ ms \(\d+ bytes sent\)/);
  assert.match(text, /\[tools\] bash call_ls done in \d+ ms/);
  assert.match(text, /\[hooks\] Stop "echo .*" \(.*settings\.json\) -> exit 0/);
  assert.match(text, /\[run\] stop after 2 turns/);
  assert.equal(text.includes(KEY), false, "no key in the log");
});

test("--debug logs to stderr; an unwritable --debug-file is a usage error", async () => {
  const fake = await serve([{ reply: { text: "hi" } }]);
  const result = await runCli(["--debug", ...fakeFlags(fake), "-p", "hello"], { cwd: tempDir() });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\[api\] POST .* -> 200/);
  const bad = await runCli(["--debug-file", join(tempDir(), "missing", "x.log"), ...fakeFlags(fake), "-p", "x"], {
    cwd: tempDir(),
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--debug-file .*x\.log: ENOENT/);
});
