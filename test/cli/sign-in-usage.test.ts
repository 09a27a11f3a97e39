// Usage as the ChatGPT plan reports it (issue 43): the backend's rate-limit headers (fake:
// `x-codex-*-used-percent` and the rest, as openai/codex reads them) make one stderr line each
// time a window crosses 75, 90 or 95 percent, never twice for one threshold; and a plan's tokens
// cost nothing (no price per token).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

test("chatgpt: a rate-limit window nearing its end is said once per threshold; the plan shows no price", async () => {
  const signIn = await startSignIn();
  const limits = (primary: number, secondary: number) => ({
    "x-codex-primary-used-percent": String(primary),
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-after-seconds": "3600",
    "x-codex-secondary-used-percent": String(secondary),
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": String(Math.round(Date.now() / 1000) + 3 * 86400),
  });
  const read = (id: string) => ({ toolCalls: [{ id, name: "read_file", arguments: { path: "a.txt" } }] });
  const steps: Array<[object, Record<string, string>]> = [
    [read("call_1"), limits(40, 10)],
    [read("call_2"), limits(76.4, 10)],
    [read("call_3"), limits(80, 91)],
    [{ text: "plan done" }, limits(96, 91)],
  ];
  const llm = await serve(
    steps.map(
      ([reply, headers]): ScriptStep =>
        (request: RecordedRequest) =>
          signIn.chatgptRefusal(request) ?? { reply: { reasoning: "thinking", ...reply }, headers },
    ),
  );
  llm.persona = PERSONAS.openai();
  const env = cleanEnv(signIn.env(llm.url));
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  const login = await runCli(["login", "chatgpt", "--device"], { env });
  assert.equal(login.code, 0, login.stderr);
  const run = await runCli(["--provider", "chatgpt", "-y", "--output", "json", "--format", "claude", "-p", "go"], {
    env,
    cwd,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(llm.errors, []);
  const said = run.stderr.split("\n").filter((line) => line.includes("ChatGPT plan:"));
  assert.equal(said.length, 3, run.stderr);
  assert.match(said[0], /ChatGPT plan: 76% of the 5 hours limit used, resets in 60 minutes$/);
  assert.match(said[1], /ChatGPT plan: 91% of the 7 days limit used, resets in 3 days$/);
  assert.match(said[2], /ChatGPT plan: 96% of the 5 hours limit used, resets in 60 minutes$/);
  const result = JSON.parse(run.stdout);
  assert.equal(result.result, "plan done");
  assert.equal(result.total_cost_usd, 0, "a plan's tokens have no price");
  assert.ok(result.usage.input_tokens > 0, "the tokens are still counted");
});
