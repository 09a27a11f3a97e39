// Compaction and spill through the built CLI: the session file keeps the full history plus a
// compaction entry, --continue resumes from the compacted state, and spilled output lives in
// the session's folder while the file holds only the cut content and the path.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction.ts";
import { type FakeLLM, type RecordedRequest, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, runCli, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

function bashStep(id: string, command: string, promptTokens: number): ScriptStep {
  return {
    reply: {
      toolCalls: [{ id, name: "bash", arguments: { command } }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
    },
  };
}

const roles = (request: RecordedRequest) => request.body.messages.map((m: { role: string }) => m.role);

test("a compacted session resumes from its summary; the file keeps everything, spilled output included", async () => {
  server = await startFakeLLM([
    // No usage on the first reply: the next request is estimated (the big result alone stays
    // under the threshold); the second reply's count calibrates the estimate.
    { reply: { toolCalls: [{ id: "call_big", name: "bash", arguments: { command: "seq 1 200000" } }], usage: null } },
    bashStep("call_two", "echo two", 8500),
    (request) => {
      assert.equal(request.body.messages[0].content, SUMMARY_SYSTEM_PROMPT);
      return { reply: { text: "SUMMARY: listed 200000 numbers, then echoed two." } };
    },
    { reply: { text: "first done" } },
    { reply: { text: "second done" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir();
  const flags = [...fakeFlags(server), "--context-window", "10000", "-y"];
  const first = await runCli([...flags, "--output", "stream-json", "-p", "list numbers"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const events = first.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const compaction = events.find((e) => e.type === "compaction");
  assert.deepEqual(
    { ...compaction, tokensBefore: 0, tokensAfter: 0 },
    {
      type: "compaction",
      summary: compaction.summary,
      removedMessages: 3,
      keptMessages: 2,
      tokensBefore: 0,
      tokensAfter: 0,
      reason: "threshold",
    },
  );

  // What stands in for the removed part: the contract's facts, then the model's summary.
  assert.match(compaction.summary, /^The conversation was compacted: 3 older messages were replaced by this note\./);
  assert.match(compaction.summary, /\n1\. "list numbers"\n/);
  assert.match(compaction.summary, /\n\nSUMMARY: listed 200000 numbers, then echoed two\.$/);

  // The file: every message (the summarised ones too), then the compaction entry; the turn's end
  // snapshot last (undo restores only what the turn changed between its two snapshots).
  const sessions = join(env.HARNESS_HOME as string, "sessions");
  const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
  const lines = readFileSync(join(sessions, file), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const kinds = lines.map((line) => (line.type === "message" ? line.message.role : line.type));
  assert.deepEqual(
    kinds.filter((kind) => kind !== "usage"),
    [
      "session",
      "turn",
      "user",
      "assistant",
      "snapshot",
      "tool",
      "assistant",
      "tool",
      "compaction",
      "assistant",
      "snapshot",
    ],
  );
  assert.deepEqual(
    lines.find((line) => line.type === "compaction"),
    {
      ...lines.find((line) => line.type === "compaction"),
      summary: compaction.summary,
      keptMessages: 2,
      reason: "threshold",
    },
  );

  // The 1.3 MB output: cut in the file, whole in the session's spill folder.
  const spilled = join(sessions, file.replace(/\.jsonl$/, ""), "spill", "call_big.txt");
  assert.equal(statSync(spilled).size, Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join("").length);
  const bigResult = lines.find((line) => line.type === "message" && line.message.toolCallId === "call_big");
  assert.ok(bigResult.message.content.includes(`is saved in ${spilled};`));
  assert.ok(statSync(join(sessions, file)).size < 100_000, "the session file holds the cut output only");

  // --continue: summary, the kept call and result, the answer, the new prompt.
  const second = await runCli([...flags, "--continue", "-p", "and then?"], { env, cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, "second done\n");
  const resumed = server.requests[4];
  assert.deepEqual(roles(resumed), ["system", "user", "assistant", "tool", "assistant", "user"]);
  assert.match(resumed.body.messages[1].content, /SUMMARY: listed 200000 numbers, then echoed two\.$/);
  assert.equal(resumed.body.messages[2].tool_calls[0].id, "call_two");
  assert.doesNotMatch(JSON.stringify(resumed.body), /seq 1 200000/, "the summarised turn is not sent again");
  assert.equal(resumed.body.messages[5].content, "and then?");

  // The listing counts the prompts of the whole history, not the summary.
  const list = await runCli(["sessions"], { env, cwd });
  assert.match(list.stdout, /2 turns +list numbers/);
});
