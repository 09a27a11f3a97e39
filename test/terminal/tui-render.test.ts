// How a turn looks in a real terminal (tmux) against the fake LLM server: spacing, widths,
// diffs and running tools as a person reads them.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { resumeInTerminal, TmuxTerminal } from "../support/tui-tmux.ts";

const PROMPT = /^>\s*$/m;
/** A command that runs until the test creates `go` in the working folder. */
const WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done; echo went";

// The terminal is ended by the shared teardown (tui-tmux.ts registers it), the server by fakeServerPerTest.
const serve = fakeServerPerTest();

async function openChat(script: ScriptStep[], args: string[] = [], columns = 100, env: Record<string, string> = {}) {
  const server = await serve(script);
  const cwd = tempDir();
  const term = TmuxTerminal.start({
    args: [...args, ...fakeFlags(server)],
    cwd,
    columns,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-"), ...env },
  });
  await term.waitFor(PROMPT, "the first prompt");
  return { fake: server, term, cwd };
}

/** Sends one prompt and waits for the status line that ends its turn. */
async function ask(term: TmuxTerminal, prompt: string): Promise<string> {
  term.type(prompt);
  term.send(["Enter"]);
  return turnEnd(term);
}

function turnEnd(term: TmuxTerminal): Promise<string> {
  return term.waitFor(/context [<\d]+%[^\n]*\n>\s*$/, "the status line and the next prompt");
}

test("a 40-column terminal: the header and the status line are cut to fit, one blank line parts tool output and answer", {
  skip: needs("tmux"),
}, async () => {
  const { term } = await openChat(
    [
      { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo tool-output" } }] } },
      { reply: { text: "the answer" } },
    ],
    ["-y"],
    40,
  );
  const screen = await ask(term, "go");
  const lines = screen.split("\n");
  // capture-pane -J joins wrapped rows, so a line that did not fit would show here longer than 40.
  const header = lines.find((line) => line.startsWith("harness · "));
  const status = lines.find((line) => line.startsWith("fake-model · "));
  assert.ok(header && status, screen);
  for (const line of [header, status]) {
    assert.ok(line.length <= 40, `wider than the terminal: ${line}`);
    assert.ok(line.endsWith("…"), `cut with an ellipsis: ${line}`);
  }
  assert.match(
    screen,
    /^ {2}tool-output\n(?: {2}\[exit code: 0\]\n)?\nthe answer$/m,
    "one blank line before the answer",
  );
});

const EDIT_X: ScriptStep[] = [
  { reply: { toolCalls: [{ name: "read_file", arguments: { path: "x.txt" } }] } },
  { reply: { toolCalls: [{ name: "edit_file", arguments: { path: "x.txt", old_string: "two", new_string: "2" } }] } },
  { reply: { text: "edited" } },
];

test("an edit's diff is shown once: in the approval question, then a one-line summary after the write", {
  skip: needs("tmux"),
}, async () => {
  const { term, cwd } = await openChat(EDIT_X);
  writeFileSync(join(cwd, "x.txt"), "one\ntwo\nthree\n");
  term.type("edit it");
  term.send(["Enter"]);
  await term.waitFor(/^allow\? edit x\.txt$/m, "the approval question");
  term.type("y");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^edited$/m, "the answer");
  assert.equal(screen.match(/^2 -two$/gm)?.length, 1, `the diff once, in the question:\n${screen}`);
  assert.match(screen, /^edit x\.txt\n {2}\+1 -1 x\.txt$/m, "the result is one line");
  assert.equal(readFileSync(join(cwd, "x.txt"), "utf8"), "one\n2\nthree\n");
});

test("with -y (no question) the diff is shown once, after the write", { skip: needs("tmux") }, async () => {
  const { term, cwd } = await openChat(EDIT_X, ["-y"]);
  writeFileSync(join(cwd, "x.txt"), "one\ntwo\nthree\n");
  term.type("edit it");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^edited$/m, "the answer");
  assert.doesNotMatch(screen, /allow\?/);
  assert.match(
    screen,
    /^edit x\.txt\n--- a\/x\.txt\n\+\+\+ b\/x\.txt\n@@ -1,3 \+1,3 @@\n1 {2}one\n2 -two\n2 \+2\n3 {2}three$/m,
  );
  assert.equal(screen.match(/^2 -two$/gm)?.length, 1, screen);
});

test("a 40-column terminal: prose and list items wrap at word boundaries, code keeps its lines", {
  skip: needs("tmux"),
}, async () => {
  const answer = [
    "The renderer wraps this sentence at word boundaries instead of cutting words.",
    "",
    "- a list item that needs two rows at forty columns",
    "",
    "```",
    "const code = 'is never re-wrapped by the renderer';",
    "```",
  ].join("\n");
  const { term } = await openChat([{ reply: { text: answer } }], [], 40);
  const screen = await ask(term, "go");
  // capture-pane -J joins rows the terminal wrapped itself: those would show here as one long line.
  const start = screen.indexOf("The renderer");
  assert.deepEqual(screen.slice(start).split("\n").slice(0, 9), [
    "The renderer wraps this sentence at word",
    "boundaries instead of cutting words.",
    "",
    "• a list item that needs two rows at",
    "  forty columns",
    "",
    "```",
    "const code = 'is never re-wrapped by the renderer';",
    "```",
  ]);
});

test("a reply's words show while its line is still streaming", { skip: needs("tmux") }, async () => {
  // The server sends the start of a one-line reply, then goes silent mid-line.
  const text = "First words show before the line ends";
  const { term } = await openChat([{ stall: { text, chunkSize: 12 }, afterEvents: 3 }]);
  term.type("go");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^First words show before/m, "the finished words of the unfinished line");
  assert.doesNotMatch(screen, /the line ends/);
  term.send(["Escape"]);
  await term.waitFor(/^interrupted$/m, "the interrupted turn");
});

test("a running tool shows its elapsed time, counting each second, gone when it ends", {
  skip: needs("tmux"),
}, async () => {
  const { term, cwd } = await openChat(
    [{ reply: { toolCalls: [{ name: "bash", arguments: { command: WAIT_FOR_GO } }] } }, { reply: { text: "it went" } }],
    ["-y"],
  );
  term.type("go");
  term.send(["Enter"]);
  // The clock shows whole seconds since the call began; on a loaded machine its first draw may
  // already say 2s (it was once caught skipping 1s), so the test waits for a count, then a larger one.
  const first = await term.waitFor(/^bash> while .*done; echo went … (\d+)s$/m, "the clock");
  const shown = Number(/ … (\d+)s$/m.exec(first)?.[1]);
  await term.waitFor(new RegExp(`^bash> while .*done; echo went … (?!${shown}s$)\\d+s$`, "m"), "the clock counting on");
  writeFileSync(join(cwd, "go"), "");
  const screen = await turnEnd(term);
  assert.doesNotMatch(screen, / … \d+s/, "the clock's line is gone once the tool ended");
  assert.match(screen, /^bash> while .*\n {2}went\n/m, "the output follows the call's line");
});

test("NO_COLOR: no clock is drawn while a tool runs (it would need escape sequences)", {
  skip: needs("tmux"),
}, async () => {
  const { term, cwd } = await openChat(
    [{ reply: { toolCalls: [{ name: "bash", arguments: { command: WAIT_FOR_GO } }] } }, { reply: { text: "it went" } }],
    ["-y"],
    100,
    { NO_COLOR: "1" },
  );
  term.type("go");
  term.send(["Enter"]);
  await term.waitFor(/^bash> while/m, "the call's line");
  // Longer than two of the clock's ticks (1 s each): a clock would have drawn by then.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.doesNotMatch(term.screen(true), / … \d+s|\x1b/, "no clock, no escape sequences");
  writeFileSync(join(cwd, "go"), "");
  await term.waitFor(/^it went$/m, "the answer");
});

test("a resumed chat replays an edit as the coloured diff it showed live, not its result's text", {
  skip: needs("tmux"),
}, async () => {
  const server = await serve([...EDIT_X.slice(0, 2), { reply: { text: "Changed **two** to `2`." } }]);
  const term = await resumeInTerminal(server, "edit it", (cwd) =>
    writeFileSync(join(cwd, "x.txt"), "one\ntwo\nthree\n"),
  );
  const screen = await term.waitFor(/harness · openai[^\n]*\n>\s*$/, "the prompt after the replay");
  assert.match(
    screen,
    /^edit x\.txt\n--- a\/x\.txt\n\+\+\+ b\/x\.txt\n@@ -1,3 \+1,3 @@\n1 {2}one\n2 -two\n2 \+2\n3 {2}three\n\nChanged two to 2\.$/m,
  );
  assert.doesNotMatch(screen, /Edited x\.txt/);
  assert.match(term.screen(true), /\x1b\[31m(?:\x1b\[\d+m)*-two/, "removed lines red");
});
