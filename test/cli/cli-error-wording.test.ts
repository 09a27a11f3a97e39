// The smaller ways a first run goes wrong, each said in words a user can act on: a missing route
// is not a missing model, an HTML 501 fails at once, a deleted current folder is named (no stack),
// export and undo with no session say so without -c, and a run that cannot start for want of a key
// reads `error:` with exit 1 (`harness:` is for exit 2). Through the built CLI.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("a 404 that names no model (a chat-only server asked for /responses) says the route is missing, not the model", async () => {
  // FastAPI's default body for a route it does not have (vLLM is a FastAPI server):
  // https://fastapi.tiangolo.com/tutorial/handling-errors/
  const fake = await serve([{ status: 404, body: { detail: "Not Found" } }]);
  const result = await runCli([...fakeFlags(fake), "--api", "responses", "-p", "hi"], {
    env: cleanEnv(),
    cwd: tempDir(),
  });
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^error: 404 openai \(http:\/\/127\.0\.0\.1:\d+\/v1\) has no such route: it does not serve the OpenAI Responses API there \(check --api and --base-url\)\. \{"detail":"Not Found"\}$/m,
  );
  assert.doesNotMatch(result.stderr, /model "fake-model" not found/);
});

test("a 404 about the model still says the model was not found", async () => {
  const fake = await serve([
    { status: 404, body: { error: { message: "The model `fake-model` does not exist", code: "model_not_found" } } },
  ]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env: cleanEnv(), cwd: tempDir() });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /model "fake-model" not found at openai/);
});

test("an HTML 501 fails at the first answer: one request, no retries, the page named", async () => {
  const page = "<html><head><title>501 Not Implemented</title></head><body>nope</body></html>";
  const fake = await serve([{ raw: page, status: 501, contentType: "text/html" }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env: cleanEnv(), cwd: tempDir() });
  assert.equal(result.code, 1);
  assert.equal(fake.requests.length, 1, "not retried");
  assert.match(
    result.stderr,
    /answered 501: an HTML page \("501 Not Implemented"\); it does not speak the OpenAI chat completions API/,
  );
});

test("started in a folder that was deleted: one clear error line, exit 1, no stack", async () => {
  const parent = tempDir();
  const gone = join(parent, "gone");
  mkdirSync(gone);
  for (const args of [["-p", "hi"], ["undo"]]) {
    // The shell cds into the folder, deletes it, then starts harness there, as a terminal can be left.
    const result = await runCli(args, {
      env: cleanEnv({ OPENAI_API_KEY: "unused" }),
      cwd: parent,
      wrap: ["/bin/sh", "-c", `cd ${gone} && rmdir ${gone} && exec "$0" "$@"`],
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      result.stderr,
      "error: the current folder no longer exists (it was deleted or moved); cd to a folder that exists and run harness again\n",
    );
    mkdirSync(gone);
  }
  rmSync(gone, { recursive: true, force: true });
});

test("export and undo with no session in this folder say so, without talking about -c", async () => {
  const cwd = tempDir();
  for (const command of ["export", "undo"]) {
    const result = await runCli([command], { env: cleanEnv(), cwd });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `harness: no session to ${command} in ${cwd}: none has run in this folder yet (harness sessions lists every session with its id)\n`,
    );
  }
});

test("-p with no key and no provider: exit 1 with error:, the prefix of a run that cannot go (harness: is for exit 2)", async () => {
  const env = cleanEnv();
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "HARNESS_API_KEY"]) delete env[name];
  const result = await runCli(["-p", "hi"], { env, cwd: tempDir() });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: no provider configured: set ANTHROPIC_API_KEY/m);
  assert.doesNotMatch(result.stderr, /^harness: no provider/m);
});
