// What a user sees on the Node this suite runs on (.ci/run runs it on 20, 22, 24 and 26): a
// one-shot prints the answer and nothing else, on either stream. V8 prints an unknown flag set by
// the CLI (src/cli/cli.ts useLeanHeap) as `Error: unrecognized flag` on stderr, without throwing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, withoutSandboxWarning } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test(`Node ${process.version}: a one-shot run prints nothing but the answer, and a tool call adds nothing`, async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo from-the-tool" } }] } },
    { reply: { text: "The answer." } },
  ]);
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "what is it?"], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "The answer.\n");
  // Only where bwrap is missing may the one line saying so appear (test/support/system-programs.ts).
  assert.equal(withoutSandboxWarning(result.stderr), "");
  assert.match(fake.requests[1].body.messages.at(-1).content, /from-the-tool/);
});

test(`Node ${process.version}: a subcommand prints nothing on stderr either (it sets the same V8 flags)`, async () => {
  const fake = await serve([]);
  fake.models = ["fake-model"];
  const result = await runCli(["models", "--provider", "openai", "--base-url", fake.baseUrl], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "fake-model\n");
  assert.equal(result.stderr, "");
});
