// A sign-in provider in the fallback chain (issue 43): config.json's provider is down, the run
// goes on with `copilot:<model>` on the user's Copilot sign-in, its token put on the request as
// for `--provider copilot`; `--fallback-model chatgpt:<model>` likewise; and a batch on Copilot.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, closedPort, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

test("fallbackModels and --fallback-model reach Copilot and ChatGPT sign-ins when the first provider is down", async () => {
  const signIn = await startSignIn();
  const llm = await serve([
    (request) => signIn.copilotRefusal(request) ?? { reply: { text: "copilot took over" } },
    (request) => signIn.chatgptRefusal(request) ?? { reply: { text: "chatgpt took over" } },
  ]);
  const env = cleanEnv(signIn.env(llm.url));
  const home = env.HARNESS_HOME as string;
  const down = await closedPort();
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      provider: "down",
      model: "claude-sonnet-4-5",
      fallbackModels: ["copilot:gpt-4.1"],
      providers: { down: { api: "anthropic", baseUrl: `http://127.0.0.1:${down}` } },
    }),
  );
  for (const name of ["copilot", "chatgpt"]) {
    const login = await runCli(name === "chatgpt" ? ["login", "chatgpt", "--device"] : ["login", "copilot"], { env });
    assert.equal(login.code, 0, login.stderr);
  }
  const viaConfig = await runCli(["-p", "hi"], { env });
  assert.equal(viaConfig.code, 0, viaConfig.stderr);
  assert.match(viaConfig.stdout, /copilot took over/);
  assert.match(viaConfig.stderr, /going on with copilot/);
  assert.equal(llm.requests[0].path, "/chat/completions");
  assert.equal(llm.requests[0].body.model, "gpt-4.1");

  const viaFlag = await runCli(["--fallback-model", "chatgpt:gpt-5.1-codex-mini", "-p", "hi"], { env });
  assert.equal(viaFlag.code, 0, viaFlag.stderr);
  assert.match(viaFlag.stdout, /chatgpt took over/);
  assert.equal(llm.requests[1].path, "/backend-api/codex/responses");
  assert.equal(llm.requests[1].body.model, "gpt-5.1-codex-mini");
});

test("a batch runs its tasks on a Copilot sign-in", async () => {
  const signIn = await startSignIn();
  const llm = await serve(
    Array.from({ length: 2 }, () => (request) => signIn.copilotRefusal(request) ?? { reply: { text: "task done" } }),
  );
  const env = cleanEnv(signIn.env(llm.url));
  const login = await runCli(["login", "copilot"], { env });
  assert.equal(login.code, 0, login.stderr);
  const dir = tempDir();
  writeFileSync(join(dir, "tasks.jsonl"), '{"id":"a","prompt":"one"}\n{"id":"b","prompt":"two"}\n');
  const run = await runCli(["batch", "tasks.jsonl", "--provider", "copilot"], { env, cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const results = readFileSync(join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(results.map((result) => [result.id, result.status]).sort(), [
    ["a", "ok"],
    ["b", "ok"],
  ]);
  assert.equal(llm.requests.length, 2);
  for (const request of llm.requests) assert.equal(request.path, "/chat/completions");
});
