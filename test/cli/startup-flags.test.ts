// --system-prompt, --append-system-prompt and --cwd through the built CLI against the fake server:
// what the model is told, and where the harness works.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** The system message of a chat-completions request. */
function systemOf(request: RecordedRequest): string {
  return request.body.messages.find((message: { role: string }) => message.role === "system").content;
}

test("--system-prompt replaces harness's own words; the working directory and AGENTS.md stay, --append-system-prompt comes last", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "AGENTS.md"), "Use tabs in this project.\n");
  const result = await runCli(
    [
      ...fakeFlags(fake),
      "--system-prompt",
      "You are a terse reviewer.",
      "--append-system-prompt",
      "Answer in French.",
      "-p",
      "hi",
    ],
    { cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const system = systemOf(fake.requests[0]);
  assert.ok(system.startsWith("You are a terse reviewer.\n"), system);
  assert.doesNotMatch(system, /You are harness/);
  assert.match(system, new RegExp(`Working directory: ${cwd}\\.`));
  assert.match(system, /Use tabs in this project\./);
  assert.ok(system.endsWith("\n\nAnswer in French."), system);
});

test("@file reads the prompt from a file relative to where the command was typed, also with --cwd", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  const typedIn = tempDir();
  const project = tempDir();
  mkdirSync(join(typedIn, "prompts"));
  writeFileSync(join(typedIn, "prompts", "extra.md"), "Always cite the file name.\n");
  const result = await runCli(
    [...fakeFlags(fake), "--cwd", project, "--append-system-prompt", "@prompts/extra.md", "-p", "hi"],
    { cwd: typedIn },
  );
  assert.equal(result.code, 0, result.stderr);
  const system = systemOf(fake.requests[0]);
  assert.match(system, /^You are harness/);
  assert.ok(system.endsWith("\n\nAlways cite the file name."), system);
});

test("a missing @file or --cwd directory is a usage error in one line (exit 2), and no model call is made", async () => {
  const fake = await serve([]);
  const cwd = tempDir();
  const missingFile = await runCli([...fakeFlags(fake), "--system-prompt", "@nowhere.md", "-p", "hi"], { cwd });
  assert.equal(missingFile.code, 2);
  assert.equal(
    missingFile.stderr.split("\n")[0],
    "harness: --system-prompt takes text or @file; cannot read nowhere.md: no such file",
  );
  const folderAsFile = await runCli([...fakeFlags(fake), "--append-system-prompt", `@${cwd}`, "-p", "hi"], { cwd });
  assert.equal(folderAsFile.code, 2);
  assert.match(
    folderAsFile.stderr,
    /^harness: --append-system-prompt takes text or @file; cannot read .*: a folder, not a file\n/,
  );
  const missingDir = await runCli([...fakeFlags(fake), "--cwd", join(cwd, "gone"), "-p", "hi"], { cwd });
  assert.equal(missingDir.code, 2);
  assert.equal(
    missingDir.stderr.split("\n")[0],
    `harness: --cwd takes an existing directory; ${join(cwd, "gone")} is not one`,
  );
  assert.equal(fake.requests.length, 0);
});

test("--cwd works in that directory: tools, AGENTS.md, and the session it records, so -c with the same --cwd continues it", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "pwd; cat here.txt" } }] } },
    { reply: { text: "done" } },
    { reply: { text: "continued" } },
  ]);
  const env = cleanEnv();
  const elsewhere = tempDir();
  const project = tempDir();
  writeFileSync(join(project, "here.txt"), "the project file\n");
  writeFileSync(join(project, "AGENTS.md"), "Project rule: be brief.\n");
  const first = await runCli(["-y", "--sandbox", "off", ...fakeFlags(fake), "--cwd", project, "-p", "where are you?"], {
    env,
    cwd: elsewhere,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(systemOf(fake.requests[0]), /Project rule: be brief\./);
  assert.match(systemOf(fake.requests[0]), new RegExp(`Working directory: ${project}\\.`));
  const toolResult = fake.requests[1].body.messages.find((message: { role: string }) => message.role === "tool");
  assert.equal(toolResult.content, `${project}\nthe project file\n[exit code: 0]`);

  const resumed = await runCli([...fakeFlags(fake), "--cwd", project, "-c", "-p", "and now?"], { env, cwd: elsewhere });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "continued\n");
  const history = fake.requests[2].body.messages.map((message: { role: string; content: unknown }) => message.role);
  assert.deepEqual(history, ["system", "user", "assistant", "tool", "assistant", "user"]);
  const notHere = await runCli([...fakeFlags(fake), "-c", "-p", "x"], { env, cwd: elsewhere });
  assert.equal(notHere.code, 2);
  assert.match(notHere.stderr, /no session to continue in/);
});

test("@file that is a FIFO, /dev/zero or too large: a usage line (exit 2), never a hang or a read past the cap", async () => {
  // A FIFO nobody writes to hung the start in readFileSync; /dev/zero (size 0) was read until memory ran out.
  const fake = await serve([]);
  const cwd = tempDir();
  execFileSync("mkfifo", [join(cwd, "prompt.fifo")]);
  symlinkSync("/dev/zero", join(cwd, "zero.md"));
  writeFileSync(join(cwd, "huge.md"), "");
  truncateSync(join(cwd, "huge.md"), 1024 ** 3); // sparse: a gigabyte, no disk used
  const cases = [
    ["--system-prompt", "prompt.fifo", "not a regular file (a FIFO, device or socket is never read)"],
    ["--append-system-prompt", "zero.md", "not a regular file (a FIFO, device or socket is never read)"],
    ["--system-prompt", "huge.md", `${1024 ** 3} bytes, more than 262144`],
  ];
  for (const [flag, file, why] of cases) {
    const result = await runCli([...fakeFlags(fake), flag, `@${file}`, "-p", "hi"], { cwd });
    assert.equal(result.signal, null, `${file}: ended on its own (${result.stderr})`);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `harness: ${flag} takes text or @file; cannot read ${file}: ${why}\nTry 'harness --help'.\n`,
    );
  }
  assert.equal(fake.requests.length, 0);
});
