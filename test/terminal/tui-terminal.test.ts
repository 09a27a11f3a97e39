// The chat in a real terminal (tmux) against the fake LLM server: what a person sees and what
// the model receives. Needs the built CLI (npm test builds it) and tmux (.ci/run installs it).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { fakeFlags, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const ANSWER = [
  "# Result",
  "",
  "Here is **the code**:",
  "",
  "```ts",
  "const answer = 42; // the answer",
  "```",
  "",
  "| Name | Score |",
  "|------|------:|",
  "| Alice | 7 |",
  "| Bob | 12345 |",
  "",
  "Done.",
].join("\n");
const USAGE = { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 };
const PROMPT = /^>\s*$/m;

let server: FakeLLM | undefined;
let terminal: TmuxTerminal | undefined;
afterEach(async () => {
  terminal?.kill();
  terminal = undefined;
  if (!server) return;
  assert.deepEqual(server.errors, []);
  await server.close();
  server = undefined;
});

async function openChat(
  script: ScriptStep[],
  env: Record<string, string> = {},
  extraArgs: string[] = [],
  columns = 100,
) {
  server = await startFakeLLM(script);
  const cwd = tempDir();
  terminal = TmuxTerminal.start({
    args: [...extraArgs, ...fakeFlags(server)],
    cwd,
    columns,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-"), ...env },
  });
  await terminal.waitFor(PROMPT, "the first prompt");
  return { fake: server, term: terminal, cwd };
}

function userTexts(body: any): string[] {
  return body.messages.filter((message: any) => message.role === "user").map((message: any) => message.content);
}

test("a streamed answer renders as Markdown: coloured code, an aligned table, and the status line", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await openChat([{ reply: { text: ANSWER, usage: USAGE, chunkSize: 5 } }]);
  term.type("show me");
  term.send(["Enter"]);
  const screen = await term.waitFor(/session 1\.2k in, 56 out/, "the status line");
  const lines = screen.split("\n").map((line) => line.trimEnd());
  assert.ok(lines.includes("│ Name  │ Score │"), screen);
  assert.ok(lines.includes("│ Alice │     7 │"), screen);
  assert.ok(lines.includes("│ Bob   │ 12345 │"), screen);
  assert.ok(lines.includes("const answer = 42; // the answer"), screen);
  assert.ok(lines.includes("Here is the code:"), "emphasis markers are gone");
  assert.ok(lines.includes("Result") && !lines.includes("# Result"), "the heading is styled, not raw");
  // The status line: model, context used of the window (the table's default for an unknown model), session tokens.
  assert.ok(
    lines.some((line) => /^fake-model · context 4% of 33k · session 1\.2k in, 56 out$/.test(line)),
    screen,
  );
  const styled = term.screen(true);
  assert.match(styled, /\x1b\[[0-9;]*35m(\x1b\[[0-9;]*m)*const/, "the keyword is coloured");
  assert.deepEqual(userTexts(fake.requests[0].body), ["show me"]);
});

test("a multi-line paste is one message, and a trailing backslash adds a line", { skip: needs("tmux") }, async () => {
  const { fake, term } = await openChat([{ reply: { text: "first answer" } }, { reply: { text: "second answer" } }]);
  term.paste("first line\nsecond line");
  term.send(["Enter"]);
  await term.waitFor(/first answer/);
  await term.waitFor(PROMPT);
  // Each key waits for the screen: keys that reach the harness in one read with more right after
  // are a paste (its Enter a newline, its backslash kept), which a loaded machine can make of them.
  term.type("one\\");
  await term.waitFor(/one\\$/m, "the typed backslash");
  term.send(["Enter"]);
  await term.waitFor(/^(?![\s\S]*one\\)[\s\S]*one/, "the backslash gone, a new line begun");
  term.type("two");
  term.send(["Enter"]);
  await term.waitFor(/second answer/);
  assert.equal(fake.requests.length, 2);
  assert.deepEqual(userTexts(fake.requests[0].body), ["first line\nsecond line"]);
  assert.deepEqual(userTexts(fake.requests[1].body), ["first line\nsecond line", "one\ntwo"]);
});

test("Esc interrupts a long tool; the prompt returns and the model hears the call was interrupted", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await openChat(
    [
      { reply: { toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] } },
      { reply: { text: "stopped as asked" } },
    ],
    {},
    ["-y"],
  );
  term.type("wait a while");
  term.send(["Enter"]);
  await term.waitFor(/bash> sleep 30/);
  term.send(["Escape"]);
  await term.waitFor(/^interrupted$/m, "the interruption");
  await term.waitFor(/interrupted\n.*\n>\s*$/, "the prompt after the status line");
  term.type("and now?");
  term.send(["Enter"]);
  await term.waitFor(/stopped as asked/);
  const messages = fake.requests[1].body.messages;
  const result = messages.find((message: any) => message.role === "tool");
  assert.match(result.content, /interrupted by the user/);
  assert.deepEqual(messages.at(-1), { role: "user", content: "and now?" });
});

test("a line typed while a tool runs is queued and reaches the model right after that tool's result", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term, cwd } = await openChat(
    [
      {
        reply: {
          toolCalls: [{ name: "bash", arguments: { command: "while [ ! -f go ]; do sleep 0.05; done; echo went" } }],
        },
      },
      { reply: { text: "saw both" } },
    ],
    {},
    ["-y"],
  );
  term.type("start");
  term.send(["Enter"]);
  await term.waitFor(/bash> while/);
  term.type("also check the tests");
  term.send(["Enter"]);
  await term.waitFor(/queued: also check the tests/);
  writeFileSync(join(cwd, "go"), "");
  await term.waitFor(/saw both/);
  assert.equal(fake.requests.length, 2);
  const tail = fake.requests[1].body.messages.slice(-2);
  assert.equal(tail[0].role, "tool");
  assert.match(tail[0].content, /went/);
  assert.deepEqual(tail[1], { role: "user", content: "also check the tests" });
});

test("Tab completes slash commands and @file names; the mentioned file goes with the prompt", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term, cwd } = await openChat([{ reply: { text: "read it" } }]);
  writeFileSync(join(cwd, "notes-for-agent.txt"), "remember the milk\n");
  term.type("/sess");
  term.send(["Tab"]);
  await term.waitFor(/^> \/sessions\s*$/m, "the completed command");
  term.send(["C-u"]);
  term.type("summarise @notes-");
  term.send(["Tab"]);
  await term.waitFor(/^> summarise @notes-for-agent\.txt\s*$/m, "the completed file name");
  term.send(["Enter"]);
  await term.waitFor(/read it/);
  assert.deepEqual(userTexts(fake.requests[0].body), [
    "summarise @notes-for-agent.txt \n\nnotes-for-agent.txt:\n```\nremember the milk\n```",
  ]);
});

for (const keys of [["C-c", "C-c"], ["C-d"]]) {
  test(`Ctrl-C clears typed text; ${keys.join(" ")} at the empty prompt ends the chat`, {
    skip: needs("tmux"),
  }, async () => {
    const { term } = await openChat([]);
    term.type("half a thought");
    await term.waitFor(/^> half a thought\s*$/m);
    term.send(["C-c"]);
    await term.waitFor(/^>\s*$/m, "the cleared prompt");
    for (const key of keys) term.send([key]);
    await term.waitFor(/^\[exit 0\]$/m, `the chat ending on ${keys.join(" ")}`);
  });
}

test("an 80-column terminal: the input survives a resize, and a wide table falls back to unaligned rows", {
  skip: needs("tmux"),
}, async () => {
  const wide = `| Column one | Column two |\n|---|---|\n| ${"a".repeat(40)} | ${"b".repeat(40)} |`;
  const { fake, term } = await openChat([{ reply: { text: wide } }], {}, [], 80);
  term.type("hello");
  await term.waitFor(/^> hello\s*$/m);
  term.resize(60);
  term.type(" world");
  await term.waitFor(/^> hello world\s*$/m, "the input redrawn at the new width");
  term.send(["Enter"]);
  const screen = await term.waitFor(/session \d+ in/, "the status line");
  assert.equal(screen.match(/^> hello/gm)?.length, 1, `the input is on screen once:\n${screen}`);
  assert.match(
    screen,
    new RegExp(`^${"a".repeat(40)} │ ${"b".repeat(40)}$`, "m"),
    "wider than 60 columns: cells joined, not padded",
  );
  assert.deepEqual(userTexts(fake.requests[0].body), ["hello world"]);
});

for (const [label, env] of [
  ["TERM=dumb", { TERM: "dumb" }],
  ["NO_COLOR", { NO_COLOR: "1" }],
] as const) {
  test(`${label}: plain text, no escape sequences on screen`, { skip: needs("tmux") }, async () => {
    const { term } = await openChat([{ reply: { text: ANSWER, usage: USAGE } }], env);
    term.type("show me");
    term.send(["Enter"]);
    await term.waitFor(/session 1\.2k in, 56 out/, "the status line");
    const styled = term.screen(true);
    assert.ok(!styled.includes("\x1b"), styled);
    assert.match(styled, /^\| Alice \| 7 \|$/m, "the Markdown is printed as written");
    assert.match(styled, /^# Result$/m);
  });
}
