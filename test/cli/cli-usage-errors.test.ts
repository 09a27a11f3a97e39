// Mistakes on the command line: one clear line in our words, exit 2, nothing run and no session created.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MIN_CONTEXT_WINDOW } from "../../src/providers/model-info.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, withoutSandboxWarning } from "../support/helpers.ts";

const serve = fakeServerPerTest();

for (const [typed, meant] of [
  ["sesions", "harness sessions"],
  ["modles", "harness models"],
  ["complection", "harness completion"],
]) {
  test(`"harness ${typed}" asks whether ${meant} was meant, and runs nothing`, async () => {
    const fake = await serve([]); // any request would fail the test: the script is empty
    const env = cleanEnv();
    const result = await runCli([typed], { env: { ...env, HARNESS_BASE_URL: fake.baseUrl } });
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      `harness: "${typed}" is not a command; did you mean ${meant}? (to send it as a prompt: harness -p ${typed})\n`,
    );
    assert.equal(existsSync(join(env.HARNESS_HOME as string, "sessions")), false, "no session was created");
    assert.equal(fake.requests.length, 0);
  });
}

test("a lone word far from every command is a prompt", async () => {
  const fake = await serve([{ reply: { text: "hello to you" } }]);
  const result = await runCli([...fakeFlags(fake), "hello"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "hello to you\n");
});

for (const [args, message] of [
  [["--output-type", "json", "-p", "x"], "unknown option --output-type; did you mean --output?"],
  [["--modle", "gpt", "-p", "x"], "unknown option --modle; did you mean --model?"],
  [["--frobnicate"], "unknown option --frobnicate"],
  [["-p"], "--print needs a value"],
  [["-p", "-x"], '-p needs a value (one that starts with "-" is written --print=-value)'],
  [["--yes=1", "-p", "x"], "--yes takes no value"],
  [["batch", "tasks.jsonl", "--concurency", "2"], "unknown option --concurency; did you mean --concurrency?"],
] as Array<[string[], string]>) {
  test(`${args.join(" ")}: "${message}", exit 2`, async () => {
    const result = await runCli(args);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.split("\n")[0], `harness: ${message}`);
    assert.doesNotMatch(
      result.stderr,
      /Unknown option|argument missing|positional/,
      "none of node's parseArgs wording",
    );
  });
}

test("--base-url that is not an http(s) URL is a usage error at once, from the flag or the environment, with no session", async () => {
  const env = cleanEnv();
  const fromFlag = await runCli(["--base-url", "not-a-url", "-p", "x"], { env });
  assert.equal(fromFlag.code, 2);
  assert.equal(
    fromFlag.stderr,
    'harness: --base-url takes an http:// or https:// URL, such as http://127.0.0.1:8080/v1 (got "not-a-url")\n',
  );
  const fromEnv = await runCli(["-p", "x"], { env: { ...env, HARNESS_BASE_URL: "localhost:8080/v1" } });
  assert.equal(fromEnv.code, 2);
  assert.equal(
    fromEnv.stderr,
    'harness: HARNESS_BASE_URL takes an http:// or https:// URL, such as http://127.0.0.1:8080/v1 (got "localhost:8080/v1")\n',
  );
  const models = await runCli(["models", "--base-url", "ftp://example.com"], { env });
  assert.equal(models.code, 2);
  assert.match(models.stderr, /--base-url takes an http:\/\/ or https:\/\/ URL/);
  assert.equal(existsSync(join(env.HARNESS_HOME as string, "sessions")), false, "no session was created");
});

test("a context window below the minimum is a usage error, from the flag or the environment, and nothing runs", async () => {
  const fake = await serve([]); // any request would fail the test
  const env = cleanEnv();
  const fromFlag = await runCli([...fakeFlags(fake), "--context-window", "1000", "-p", "x"], { env });
  assert.equal(fromFlag.code, 2);
  assert.equal(
    fromFlag.stderr.split("\n")[0],
    `harness: --context-window takes at least ${MIN_CONTEXT_WINDOW} tokens (the system prompt and tools alone are about 2k)`,
  );
  const fromEnv = await runCli([...fakeFlags(fake), "-p", "x"], { env: { ...env, HARNESS_CONTEXT_WINDOW: "512" } });
  assert.equal(fromEnv.code, 2);
  assert.match(
    fromEnv.stderr,
    new RegExp(`^harness: HARNESS_CONTEXT_WINDOW takes at least ${MIN_CONTEXT_WINDOW} tokens$`, "m"),
  );
  assert.equal(existsSync(join(env.HARNESS_HOME as string, "sessions")), false, "no session was created");
});

test("one wording across commands: our words for bad options (no parseArgs or zod text), 'Usage:' capitalised", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["sessions", "--bogus"], /^harness: unknown option --bogus\nUsage: harness sessions /],
    [["export", "--bogus"], /^harness: unknown option --bogus\nUsage: harness export /],
    [["undo", "--bogus"], /^harness: unknown option --bogus\nUsage: harness undo /],
    [["models", "--provder", "x"], /^harness models: unknown option --provder; did you mean --provider\?\n/],
    [["batch"], /^harness: give one tasks file\nUsage: harness batch /],
    [["worker"], /Usage: harness worker /],
    [["--max-turns", "0", "-p", "x"], /^harness: --max-turns takes a positive whole number\n/],
  ];
  for (const [args, expected] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, expected, args.join(" "));
    assert.doesNotMatch(result.stderr, /Unknown option|To specify a positional|✖|^usage:/m, args.join(" "));
  }
});

test("a failed run reads the same in every output format: one 'error:' line", async () => {
  const lines: string[] = [];
  for (const output of ["text", "json", "stream-json"]) {
    const fake = await serve([{ status: 400, body: { error: { message: "bad request body" } } }]);
    const result = await runCli([...fakeFlags(fake), "--output", output, "-p", "x"]);
    assert.equal(result.code, 1, result.stderr);
    lines.push(withoutSandboxWarning(result.stderr).replace(fake.baseUrl, "<base>"));
  }
  assert.match(lines[0], /^error: 400 .*bad request body\n$/);
  assert.deepEqual(lines, [lines[0], lines[0], lines[0]]);
});
