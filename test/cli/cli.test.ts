// The built CLI as a child process against the fake server: what a user and a script see.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PRESETS } from "../../src/wiring/defaults.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("--help and --version exit 0 without a key", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^harness \S+: a coding agent/);
  assert.match(help.stdout, /--max-turns/);
  // The list may wrap onto lines of its own (indented, not a flag).
  const providers = /^ {2}--provider <name> +(.*(?:\n {4,}\S.*)*)$/m.exec(help.stdout)?.[1] ?? "";
  for (const name of Object.keys(PRESETS)) assert.match(providers, new RegExp(`\\b${name}\\b`), `--help names ${name}`);
  const version = await runCli(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
});

test("a bad flag is a usage error (exit 2)", async () => {
  const result = await runCli(["--max-turns", "zero", "-p", "x"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--max-turns takes a positive whole number/);
  const unknown = await runCli(["--frobnicate"]);
  assert.equal(unknown.code, 2);
});

test("every command reads its flags through one schema: the same value is refused the same way, in one line, exit 2", async () => {
  const cases: [string[], string][] = [
    [["--max-turns", "0", "-p", "x"], "harness: --max-turns takes a positive whole number\n"],
    [["acp", "--max-turns", "0"], "harness acp: --max-turns takes a positive whole number\n"],
    [["batch", "tasks.jsonl", "--max-turns", "0"], "harness: --max-turns takes a positive whole number\n"],
    [["batch", "tasks.jsonl", "--concurrency", "257"], "harness: --concurrency takes a whole number from 1 to 256\n"],
    [
      ["worker", "--queue", "redis://127.0.0.1:9/q", "--concurrency", "257"],
      "harness: --concurrency takes a whole number from 1 to 256\n",
    ],
    [
      ["worker", "--queue", "redis://127.0.0.1:9/q", "--concurrency", "1e1"],
      "harness: --concurrency takes a whole number from 1 to 256\n",
    ],
    [["--approve", "sometimes", "-p", "x"], "harness: --approve takes ask, edits, plan or all\n"],
    [["--output", "xml", "-p", "x"], "harness: --output takes text, json or stream-json\n"],
  ];
  for (const [args, firstLine] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 2, args.join(" "));
    assert.equal(`${result.stderr.split("\n")[0]}\n`, firstLine, args.join(" "));
  }
  const unknown = await runCli(["--frobnicate", "-p", "x"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "harness: unknown option --frobnicate\nTry 'harness --help'.\n");
});

test("no key anywhere: the error says which variable to set", async () => {
  const result = await runCli(["-p", "hi", "--provider", "openrouter"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /set OPENROUTER_API_KEY/);
});

test("one-shot: stdout holds only the final answer; the tool ran; exit 0", async () => {
  const fake = await serve([
    {
      reply: {
        text: "Checking the file first.",
        toolCalls: [{ name: "bash", arguments: { command: "cat note.txt" } }],
      },
    },
    { reply: { text: "The note says: remember the milk." } },
  ]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "note.txt"), "remember the milk\n");
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "what does the note say?"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "The note says: remember the milk.\n");
  assert.equal(withoutSandboxWarning(result.stderr), "", "stderr is not a TTY: no trace");
  assert.match(fake.requests[1].body.messages.at(-1).content, /remember the milk/);
});

test("prompt words and piped stdin are prompts too", async () => {
  const fake = await serve([{ reply: { text: "A" } }, { reply: { text: "B" } }]);
  const words = await runCli([...fakeFlags(fake), "say", "A"]);
  assert.equal(words.stdout, "A\n");
  const piped = await runCli(fakeFlags(fake), { input: "say B\nplease\n" });
  assert.equal(piped.stdout, "B\n");
  assert.equal(fake.requests[0].body.messages.at(-1).content, "say A");
  assert.equal(fake.requests[1].body.messages.at(-1).content, "say B\nplease\n");
});

test("headless without --yes: a command is refused and the model is told", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "touch should-not-exist" } }] } },
    { reply: { text: "I was not allowed." } },
  ]);
  const cwd = tempDir();
  const result = await runCli([...fakeFlags(fake), "-p", "make a file"], { cwd });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "I was not allowed.\n");
  assert.match(fake.requests[1].body.messages.at(-1).content, /The user did not allow this tool call/);
});

test("max turns exits 3", async () => {
  const loop = { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } };
  const fake = await serve([loop, loop]);
  const result = await runCli([...fakeFlags(fake), "-y", "--max-turns", "2", "-p", "loop forever"]);
  assert.equal(result.code, 3);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /stopped after 2 model calls/);
});

test("counts read right in the singular: --max-turns 1 stops after 1 model call; a one-line write is 1 line", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ name: "write_file", arguments: { path: "one.txt", content: "only line\n" } }] } },
  ]);
  const result = await runCli([...fakeFlags(fake), "-y", "--max-turns", "1", "-p", "write one line"]);
  assert.equal(result.code, 3);
  assert.match(result.stderr, /stopped after 1 model call \(--max-turns\)/);
  assert.equal(fake.requests.length, 1);

  const again = await serve([
    { reply: { toolCalls: [{ name: "write_file", arguments: { path: "two.txt", content: "only line\n" } }] } },
    { reply: { text: "written" } },
  ]);
  const written = await runCli([...fakeFlags(again), "-y", "-p", "write one line"]);
  assert.equal(written.code, 0, written.stderr);
  const toolResult = again.requests[1].body.messages.find((m: any) => m.role === "tool");
  assert.match(toolResult.content, /\(10 bytes, 1 line\)\.$/);
});

test("an API failure exits 1 with a one-line reason on stderr", async () => {
  const fake = await serve([{ status: 401 }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env: cleanEnv({ OPENAI_API_KEY: "sk-bad" }) });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.equal(withoutSandboxWarning(result.stderr).trim().split("\n").length, 1);
  assert.match(result.stderr, /check OPENAI_API_KEY/);
  assert.doesNotMatch(result.stderr, /sk-bad/);
});

test("--output json prints one object; stream-json one event per line", async () => {
  const fake = await serve([
    { reply: { text: "json answer" } },
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } },
    { reply: { text: "streamed" } },
  ]);
  const json = await runCli([...fakeFlags(fake), "--output", "json", "-p", "hi"]);
  assert.equal(json.code, 0);
  const final = JSON.parse(json.stdout);
  assert.match(final.sessionId, /^[\w-]+$/);
  assert.deepEqual(final, {
    type: "done",
    reason: "stop",
    answer: "json answer",
    turns: 1,
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    sessionId: final.sessionId,
  });
  const stream = await runCli([...fakeFlags(fake), "-y", "--output", "stream-json", "-p", "hi"]);
  const events = stream.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const types = events.map((e) => e.type);
  assert.equal(types[0], "start");
  assert.ok(types.includes("text_delta"));
  assert.ok(types.indexOf("tool_start") < types.indexOf("tool_end"));
  assert.equal(types.at(-1), "done");
  assert.equal(events.at(-1).answer, "streamed");
  assert.match(events[0].sessionId, /^[\w-]+$/, "the first event names the session");
  assert.equal(events.at(-1).sessionId, events[0].sessionId);
});

test("--output json: the final object's sessionId resumes the conversation", async () => {
  const fake = await serve([{ reply: { text: "the word is teal" } }, { reply: { text: "it was teal" } }]);
  const env = cleanEnv();
  const first = await runCli([...fakeFlags(fake), "--output", "json", "-p", "remember a colour"], { env });
  assert.equal(first.code, 0, first.stderr);
  const { sessionId } = JSON.parse(first.stdout);
  const second = await runCli([...fakeFlags(fake), "--output", "json", "-r", sessionId, "-p", "which colour?"], {
    env,
  });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(JSON.parse(second.stdout).sessionId, sessionId, "the resumed run is the same session");
  const sent = JSON.stringify(fake.requests[1].body.messages);
  assert.match(sent, /remember a colour/);
  assert.match(sent, /the word is teal/);
});

test("SIGINT during a tool kills the command and exits 130", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { name: "bash", arguments: { command: "echo started > marker; sleep 30; echo finished >> marker" } },
        ],
      },
    },
  ]);
  const cwd = tempDir();
  const started = Date.now();
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "wait"], {
    cwd,
    onSpawn(child) {
      const timer = setInterval(() => {
        try {
          if (readFileSync(join(cwd, "marker"), "utf8").includes("started")) {
            clearInterval(timer);
            child.kill("SIGINT");
          }
        } catch {
          // not yet
        }
      }, 50);
    },
  });
  assert.equal(result.code, 130);
  // The marker proves the command was killed (it never wrote "finished"). The time is a liveness
  // bound only, far above a normal run, so a loaded machine cannot fail it.
  assert.equal(readFileSync(join(cwd, "marker"), "utf8"), "started\n");
  assert.ok(Date.now() - started < 120_000, "the run ended");
});

test("AGENTS.md from the repository root down to the working directory reaches the system prompt", async () => {
  const fake = await serve([{ reply: { text: "ok" } }]);
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "pkg"));
  writeFileSync(join(repo, "AGENTS.md"), "Root rule: use tabs.");
  // Beside AGENTS.md, CLAUDE.md and its imports, then CLAUDE.local.md, still reach the model (issue 50).
  writeFileSync(join(repo, "CLAUDE.md"), "Claude rule: see @style.md");
  writeFileSync(join(repo, "style.md"), "Style rule: short names.");
  writeFileSync(join(repo, "CLAUDE.local.md"), "Local rule: my own editor.");
  writeFileSync(join(repo, "pkg", "CLAUDE.md"), "Package rule: no semicolons.");
  writeFileSync(join(repo, "pkg", "AGENTS.md"), "Root rule: use tabs."); // a copy: sent once
  await runCli([...fakeFlags(fake), "-p", "hi"], { cwd: join(repo, "pkg") });
  const system: string = fake.requests[0].body.messages[0].content;
  const order = ["Root rule: use tabs.", "Claude rule", "Style rule: short names.", "Local rule", "Package rule"];
  const places = order.map((text) => system.indexOf(text));
  assert.ok(
    places.every((place, index) => place >= 0 && (index === 0 || place > places[index - 1])),
    String(places),
  );
  assert.equal(system.split("Root rule: use tabs.").length, 2, "a copy of a file already read is not sent again");
  assert.match(system, /Working directory: .*pkg/);
});
