// Message threads through the built CLI: HARNESS_SERVER_STATE turns them on for a gateway (the
// fake), `--output stream-json` and the session file say whether each request created or
// continued a thread and what it uploaded, and a resumed session starts a new thread.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeServerPerTest, jsonLines, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("stream-json and the session record each thread's create or continue and size; a resumed session creates", async () => {
  const bash = (id: string) => ({ reply: { toolCalls: [{ id, name: "bash", arguments: { command: "echo hi" } }] } });
  const fake = await serve([
    bash("toolu_1"),
    bash("toolu_2"),
    { reply: { text: "done" } },
    { reply: { text: "again" } },
  ]);
  const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", HARNESS_SERVER_STATE: "on" });
  const cwd = tempDir();
  const flags = ["--provider", "anthropic", "--base-url", fake.url, "--model", "claude-sonnet-4-5"];
  const run = await runCli([...flags, "-y", "--sandbox", "off", "--output", "stream-json", "-p", "go"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  const replies = jsonLines(run.stdout)
    .filter((event) => event.type === "message" && event.message.role === "assistant")
    .map((event) => event.message.thread);
  assert.deepEqual(
    replies.map((thread) => thread?.mode),
    ["create", "continue", "continue"],
  );
  assert.deepEqual(
    replies.map((thread) => thread.bytes),
    fake.requests.map((request) => request.bytes),
    "the recorded sizes are the uploads the server saw",
  );
  const [file] = readdirSync(join(env.HARNESS_HOME as string, "sessions")).filter((name) => name.endsWith(".jsonl"));
  const stored = readFileSync(join(env.HARNESS_HOME as string, "sessions", file), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.message?.role === "assistant")
    .map((entry) => entry.message.thread.mode);
  assert.deepEqual(stored, ["create", "continue", "continue"]);

  const resumed = await runCli(["--continue", "-p", "once more"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  const last = fake.requests.at(-1);
  assert.equal(last?.thread, "create", "a resumed session starts a new thread");
  assert.equal(last?.body.messages.length, 7, "with the whole conversation");
});
