// A run killed with SIGKILL (no chance to clean up) at several points, then continued: nothing
// completed is lost, the file still parses, and the provider gets a valid conversation (the fake
// server checks tool-call/result pairing on every request).
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { UNFINISHED_TOOL_RESULT } from "../../src/session/repair-transcript.ts";
import { readSession } from "../../src/session/session-reader.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

/** How often the test looks for the moment to kill. */
const POLL_MS = 20;

const serve = fakeServerPerTest();

/** Kills the child with SIGKILL as soon as `isTime()` holds. */
function killWhen(isTime: () => boolean) {
  return (child: ChildProcess) => {
    const timer = setInterval(() => {
      if (!isTime()) return;
      clearInterval(timer);
      child.kill("SIGKILL");
    }, POLL_MS);
    child.on("exit", () => clearInterval(timer));
  };
}

function sessionText(env: NodeJS.ProcessEnv): string {
  const dir = join(env.HARNESS_HOME as string, "sessions");
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : [];
  return files.length === 1 ? readFileSync(join(dir, files[0]), "utf8") : "";
}

function sessionPath(env: NodeJS.ProcessEnv): string {
  const dir = join(env.HARNESS_HOME as string, "sessions");
  return join(dir, readdirSync(dir).find((name) => name.endsWith(".jsonl")) as string);
}

/** Every line of the file is whole JSON (nothing torn, nothing half-written). */
function assertParses(env: NodeJS.ProcessEnv): void {
  const text = readFileSync(sessionPath(env), "utf8");
  assert.ok(text.endsWith("\n"));
  for (const line of text.trimEnd().split("\n")) JSON.parse(line);
  assert.deepEqual(readSession(sessionPath(env)).notices, []);
}

test("killed while the reply streams: the prompt is kept and the next run continues after it", async () => {
  const fake = await serve([
    { reply: { text: "an answer that streams slowly and is killed half-way", chunkSize: 8, delayMs: 1000 } },
    { reply: { text: "picked up" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir();
  let isStreaming = false;
  const killed = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "first prompt"], {
    env,
    cwd,
    onSpawn(child) {
      child.stdout?.on("data", (chunk: Buffer) => (isStreaming ||= chunk.toString().includes('"text_delta"')));
      killWhen(() => isStreaming)(child);
    },
  });
  assert.equal(killed.signal, "SIGKILL", `code ${killed.code}: ${killed.stderr}`);
  assertParses(env);

  const resumed = await runCli([...fakeFlags(fake), "-c", "-p", "second prompt"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "picked up\n");
  const sent = fake.requests[1].body.messages.filter((m: any) => m.role !== "system");
  assert.deepEqual(sent, [
    { role: "user", content: "first prompt" },
    { role: "user", content: "second prompt" },
  ]);
  assertParses(env);
});

test("killed while a tool runs: the call gets an 'interrupted' result and the conversation stays valid", async () => {
  const fake = await serve([
    {
      reply: {
        text: "Running it.",
        toolCalls: [{ id: "call_sleep", name: "bash", arguments: { command: "echo $$ > started; sleep 30" } }],
      },
    },
    { reply: { text: "understood" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir();
  const killed = await runCli([...fakeFlags(fake), "-y", "-p", "run the slow thing"], {
    env,
    cwd,
    onSpawn: killWhen(() => existsSync(join(cwd, "started"))),
  });
  assert.equal(killed.signal, "SIGKILL", `code ${killed.code}: ${killed.stderr}`);
  // The orphaned `sleep` has its own process group (the bash tool's); end it.
  const pid = Number(readFileSync(join(cwd, "started"), "utf8"));
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
  assertParses(env);
  assert.match(sessionText(env), /call_sleep/, "the reply that asked for the tool was on disk before the tool ran");

  const resumed = await runCli([...fakeFlags(fake), "-c", "-p", "what happened?"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = fake.requests[1].body.messages.filter((m: any) => m.role !== "system");
  assert.deepEqual(
    sent.map((m: any) => m.role),
    ["user", "assistant", "tool", "user"],
  );
  assert.equal(sent[1].tool_calls[0].id, "call_sleep");
  assert.deepEqual(sent[2], { role: "tool", tool_call_id: "call_sleep", content: UNFINISHED_TOOL_RESULT });
  assert.equal(sent[3].content, "what happened?");
});

test("killed between turns: the tool's real result is kept and sent on", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_echo", name: "bash", arguments: { command: "echo tool-output-kept" } }] } },
    { hang: true }, // the second model call never answers: the kill lands between turns
    { reply: { text: "carrying on" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir();
  const killed = await runCli([...fakeFlags(fake), "-y", "-p", "echo something"], {
    env,
    cwd,
    onSpawn: killWhen(() => fake.requests.length === 2),
  });
  assert.equal(killed.signal, "SIGKILL", `code ${killed.code}: ${killed.stderr}`);
  assertParses(env);

  const resumed = await runCli([...fakeFlags(fake), "-c", "-p", "go on"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = fake.requests[2].body.messages.filter((m: any) => m.role !== "system");
  assert.deepEqual(
    sent.map((m: any) => m.role),
    ["user", "assistant", "tool", "user"],
  );
  assert.match(sent[2].content, /tool-output-kept/);
  assert.equal(sent[2].tool_call_id, "call_echo");
});

test("interrupted with Ctrl-C: the partial reply is kept, marked, and the turn recorded as interrupted", async () => {
  const fullText = "partial words, then more words that arrive too late to be heard";
  const fake = await serve([{ reply: { text: fullText, chunkSize: 8, delayMs: 1000 } }, { reply: { text: "fine" } }]);
  const env = cleanEnv();
  const cwd = tempDir();
  let sawText = false;
  const interrupted = await runCli([...fakeFlags(fake), "--output", "stream-json", "-p", "talk"], {
    env,
    cwd,
    onSpawn(child) {
      child.stdout?.on("data", (chunk: Buffer) => {
        if (!sawText && chunk.toString().includes('"text_delta"')) {
          sawText = true;
          child.kill("SIGINT");
        }
      });
    },
  });
  assert.equal(interrupted.code, 130, interrupted.stderr);
  const session = readSession(sessionPath(env));
  assert.deepEqual(
    session.entries.map((e) => e.type),
    ["turn", "message", "message", "interrupted"],
  );
  const partial = session.messages[1];
  assert.equal(partial.role, "assistant");
  assert.ok(partial.role === "assistant" && partial.stopReason === "aborted");
  const partialText = partial.role === "assistant" && partial.content[0].type === "text" ? partial.content[0].text : "";
  assert.ok(
    partialText.length > 0 && partialText.length < fullText.length && fullText.startsWith(partialText),
    partialText,
  );

  const resumed = await runCli([...fakeFlags(fake), "-c", "-p", "again"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = fake.requests[1].body.messages.filter((m: any) => m.role !== "system");
  assert.deepEqual(sent, [
    { role: "user", content: "talk" },
    { role: "assistant", content: partialText },
    { role: "user", content: "again" },
  ]);
});
