// A long run must not leak one abort listener per model call onto the run's signal (Node warns at
// 11 with MaxListenersExceededWarning, printed into the user's terminal).
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const MODEL_CALLS = 15;

for (const api of ["openai", "anthropic"] as const) {
  test(`${api}: ${MODEL_CALLS} model calls in one run leave no MaxListenersExceededWarning on stderr`, async () => {
    const toolTurns = Array.from({ length: MODEL_CALLS - 1 }, (_, i) => ({
      reply: { toolCalls: [{ name: "bash", arguments: { command: `echo step-${i}` } }] },
    }));
    const server = await serve([...toolTurns, { reply: { text: "all steps done" } }]);
    const flags =
      api === "openai"
        ? fakeFlags(server)
        : ["--provider", "anthropic", "--base-url", server.url, "--model", "claude-test"];
    const result = await runCli([...flags, "-y", "-p", "run the steps"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "test-key" }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, MODEL_CALLS);
    assert.equal(result.stdout, "all steps done\n");
    assert.doesNotMatch(result.stderr, /MaxListenersExceededWarning|memory leak/);
  });
}
