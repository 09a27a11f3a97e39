// Every way a reply ends is shown: one cut at the output limit before any text (a reasoning model
// spending max_tokens on thinking, as OpenAI's finish_reason "length" with only reasoning_tokens
// reports it) is an error on stderr and in the events, with exit 1; one cut after some text is a
// warning. Through the built CLI against the fake OpenAI-compatible server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, jsonLines, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** All 256 output tokens spent reasoning: no content, finish_reason length. */
const ALL_REASONING = {
  reply: {
    finishReason: "length",
    usage: {
      prompt_tokens: 12,
      completion_tokens: 256,
      total_tokens: 268,
      completion_tokens_details: { reasoning_tokens: 256 },
    },
  },
};

const CUT_OFF_ERROR =
  "error: the reply was cut off at the output limit (--max-tokens 256) after 256 output tokens, before any text (a reasoning model may spend it all thinking); try a larger --max-tokens\n";

test("a reply cut at --max-tokens before any text: exit 1, error on stderr naming the limit, nothing on stdout", async () => {
  const fake = await serve([ALL_REASONING]);
  const result = await runCli([...fakeFlags(fake), "--max-tokens", "256", "-p", "think hard"], {
    env: cleanEnv(),
    cwd: tempDir(),
  });
  assert.equal(result.code, 1);
  assert.equal(result.stdout.trim(), "");
  assert.ok(result.stderr.endsWith(CUT_OFF_ERROR), result.stderr);
});

test("stream-json: done says reason error, stopReason length and the output tokens spent", async () => {
  const fake = await serve([ALL_REASONING]);
  const result = await runCli([...fakeFlags(fake), "--max-tokens", "256", "--output", "stream-json", "-p", "think"], {
    env: cleanEnv(),
    cwd: tempDir(),
  });
  assert.equal(result.code, 1);
  const done = jsonLines(result.stdout).at(-1);
  assert.deepEqual(
    { reason: done.reason, stopReason: done.stopReason, outputTokens: done.outputTokens, answer: done.answer },
    { reason: "error", stopReason: "length", outputTokens: 256, answer: "" },
  );
  assert.ok(result.stderr.endsWith(CUT_OFF_ERROR), result.stderr);
});

test("a reply cut after some text: the text is the answer (exit 0) and stderr warns that a larger --max-tokens lets it finish", async () => {
  const fake = await serve([{ reply: { text: "The first half of", finishReason: "length" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "explain"], { env: cleanEnv(), cwd: tempDir() });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "The first half of\n");
  assert.match(
    result.stderr,
    /^warning: the reply was cut off at the output limit; a larger --max-tokens lets it finish$/m,
  );
});
