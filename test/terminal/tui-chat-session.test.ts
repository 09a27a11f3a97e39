// Whole chats in a real terminal (tmux) against the fake LLM server: quitting and coming back,
// input typed while the agent works, and a realistic session from first prompt to /exit.
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { resumeInTerminal, TmuxTerminal } from "../support/tui-tmux.ts";

const PROMPT = /^>\s*$/m;
const APPROVAL_LINE = /^ {2}\[y\]es {2}\[n\]o {2}\[r\]efuse, saying why.* > *$/m;
/** A command that runs until the test creates `go` in the working folder. */
const WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done; echo went";

// The terminal is ended by the shared teardown (tui-tmux.ts registers it), the server by fakeServerPerTest.
const serve = fakeServerPerTest();

async function openChat(script: ScriptStep[], args: string[] = []) {
  const server = await serve(script);
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const terminal = TmuxTerminal.start({
    args: [...args, ...fakeFlags(server)],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: home },
  });
  await terminal.waitFor(PROMPT, "the first prompt");
  return {
    fake: server,
    term: terminal,
    cwd,
    sessionIds: () =>
      readdirSync(join(home, "sessions"))
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => name.slice(0, -".jsonl".length)),
  };
}

function userTexts(body: any): string[] {
  return body.messages.filter((message: any) => message.role === "user").map((message: any) => message.content);
}

test("an empty Enter does nothing; Ctrl-C at the empty prompt says how to quit, a second quits with the resume hint", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term, sessionIds } = await openChat([{ reply: { text: "hello there" } }]);
  term.type("hi");
  term.send(["Enter"]);
  await term.waitFor(/hello there/);
  await term.waitFor(/session \d+ in.*\n>\s*$/, "the prompt after the answer");
  term.send(["Enter"]);
  term.send(["C-c"]);
  await term.waitFor(/^press Ctrl-C again to quit \(or Ctrl-D, or \/exit\)$/m, "the quit hint");
  term.send(["C-c"]);
  const screen = await term.waitFor(/^\[exit 0\]$/m, "the chat ending");
  const [id] = sessionIds();
  assert.match(screen, new RegExp(`^resume with: harness -r ${id}$`, "m"));
  assert.equal(fake.requests.length, 1, "the empty Enter sent nothing");
});

test("a slash command typed while the agent works waits for the turn's end and never reaches the model", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term, cwd } = await openChat(
    [
      { reply: { toolCalls: [{ name: "bash", arguments: { command: WAIT_FOR_GO } }] } },
      { reply: { text: "finished the work" } },
    ],
    ["-y"],
  );
  term.type("start");
  term.send(["Enter"]);
  await term.waitFor(/^bash> while/m, "the command running (the answer taken)");
  term.type("/thinking");
  term.send(["Enter"]);
  await term.waitFor(/^queued: \/thinking \(runs when the agent is done\)$/m);
  writeFileSync(join(cwd, "go"), "");
  const screen = await term.waitFor(/finished the work[\s\S]*thinking: default/, "the command run after the turn");
  assert.doesNotMatch(screen, /unknown command/);
  assert.equal(fake.requests.length, 2);
  assert.deepEqual(userTexts(fake.requests[1].body), ["start"]);
});

test("Enter for text typed before an approval question appeared queues that text; it does not answer the question", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await openChat([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo checked" } }], delayMs: 400 } },
    { reply: { text: "checked both" } },
  ]);
  term.type("check it");
  term.send(["Enter"]);
  await term.waitFor(/thinking \d+s/, "the spinner");
  term.type("check the docs too");
  await term.waitFor(APPROVAL_LINE, "the approval question");
  term.send(["Enter"]);
  await term.waitFor(/^queued: check the docs too/m);
  await term.waitFor(APPROVAL_LINE, "the question, still asked");
  term.type("y");
  term.send(["Enter"]);
  await term.waitFor(/checked both/);
  const tail = fake.requests[1].body.messages.slice(-2);
  assert.equal(tail[0].role, "tool");
  assert.match(tail[0].content, /^checked/);
  assert.deepEqual(tail[1], { role: "user", content: "check the docs too" });
});

test("a realistic session: tool calls without text, a denial with a reason, a queued message, /exit with the resume hint", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term, cwd, sessionIds } = await openChat([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "ls" } }] } },
    { reply: { toolCalls: [{ name: "bash", arguments: { command: WAIT_FOR_GO } }] } },
    { reply: { toolCalls: [{ name: "write_file", arguments: { path: "NOTES.md", content: "# Notes\n" } }] } },
    { reply: { text: "Listed the files and waited; the notes were not written, as you asked." } },
  ]);
  writeFileSync(join(cwd, "README.md"), "# Project\n");
  term.type("tidy the project");
  term.send(["Enter"]);

  await term.waitFor(/^allow\? bash> ls$/m, "the first question");
  term.type("y");
  term.send(["Enter"]);

  await term.waitFor(/^allow\? bash> while/m, "the second question");
  term.type("y");
  term.send(["Enter"]);
  await term.waitFor(/^bash> while/m, "the command running (the answer taken)");
  term.type("also update the README");
  term.send(["Enter"]);
  await term.waitFor(/^queued: also update the README/m);
  writeFileSync(join(cwd, "go"), "");

  await term.waitFor(/^allow\? write NOTES\.md/m, "the write's question");
  await term.waitFor(APPROVAL_LINE);
  term.type("no, not now, just report");
  term.send(["Enter"]);

  await term.waitFor(/the notes were not written, as you asked/);
  await term.waitFor(/session \d+ in.*\n>\s*$/, "the prompt after the answer");
  term.type("/exit");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^\[exit 0\]$/m, "the chat ending");

  const [id] = sessionIds();
  assert.match(screen, new RegExp(`^resume with: harness -r ${id}$`, "m"));
  assert.doesNotMatch(screen, /thinking \d+sallow|MaxListeners/);
  assert.equal(fake.requests.length, 4);
  const afterWait = fake.requests[2].body.messages.slice(-2);
  assert.match(afterWait[0].content, /went/);
  assert.deepEqual(afterWait[1], { role: "user", content: "also update the README" });
  const refusal = fake.requests[3].body.messages.at(-1);
  assert.equal(refusal.role, "tool");
  assert.match(refusal.content, /did not allow this tool call\. The user said: not now, just report/);
});

test("a resumed chat replays its last turns as they were drawn live: rendered Markdown and tool traces, not raw text and JSON", {
  skip: needs("tmux"),
}, async () => {
  const server = await serve([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo listed-output" } }] } },
    { reply: { text: "Found **one file** and `README.md`." } },
  ]);
  const term = await resumeInTerminal(server, "look around");
  const screen = await term.waitFor(
    /harness · openai · fake-model[^\n]*\n[\s\S]*^>\s*$/m,
    "the prompt after the replay",
  );
  const replay = screen.slice(0, screen.indexOf("harness · openai"));
  assert.match(replay, /^> look around$/m);
  assert.match(replay, /^bash> echo listed-output$/m, "the call as its trace");
  assert.match(replay, /^ {2}listed-output$/m, "its output, folded as live");
  assert.match(replay, /^Found one file and README\.md\.$/m, "the reply rendered");
  assert.doesNotMatch(replay, /\{"command"|\*\*|`/, "no raw JSON arguments or Markdown");
  const styled = term.screen(true);
  assert.match(styled, /\x1b\[1mone file\x1b\[0m/, "bold is drawn bold");
});
