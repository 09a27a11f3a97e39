// What a one-shot run sends: nothing the user typed or piped is dropped.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

function lastUserText(body: any): string {
  return body.messages.filter((message: any) => message.role === "user").at(-1).content;
}

test("-p with piped stdin: the prompt, then stdin as context", async () => {
  const fake = await serve([{ reply: { text: "explained" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "explain this"], { input: "DATA line 1\nDATA line 2\n" });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "explained\n");
  assert.equal(lastUserText(fake.requests[0].body), "explain this\n\nstdin:\n```\nDATA line 1\nDATA line 2\n```");
});

test("-p a b: every word is the prompt", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "fix", "the", "tests"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(lastUserText(fake.requests[0].body), "fix the tests");
});

test("@file in -p attaches the file, as in the chat", async () => {
  const fake = await serve([{ reply: { text: "read it" } }]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
  const result = await runCli([...fakeFlags(fake), "-p", "summarise @notes.txt"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(lastUserText(fake.requests[0].body), "summarise @notes.txt\n\nnotes.txt:\n```\nremember the milk\n```");
});

test("-p with a pipe that stays open and sends nothing: the prompt runs alone after a short wait, with a notice", async () => {
  const fake = await serve([{ reply: { text: "ran alone" } }]);
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child = spawn(process.execPath, [CLI, ...fakeFlags(fake), "--sandbox", "off", "-p", "hello"], {
      cwd: tempDir(),
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    // stdin is left open, and nothing is written to it.
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "ran alone\n");
  assert.match(result.stderr, /^harness: stdin sent nothing for 1s: running the prompt without it\n$/);
  assert.equal(lastUserText(fake.requests[0].body), "hello");
});
