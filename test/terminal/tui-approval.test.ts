// Approval questions in a real terminal (tmux): visible, not overwritten by the waiting spinner.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const APPROVAL_LINE = /^ {2}\[y\]es {2}\[n\]o {2}\[r\]efuse, saying why.* > *$/m;
/** Longer than two ticks of the spinner (1 s each): a running timer would have redrawn by then. */
const SPINNER_TICKS_MS = 2500;

// The terminal is ended by the shared teardown (tui-tmux.ts registers it), the server by fakeServerPerTest.
const serve = fakeServerPerTest();

async function start(script: ScriptStep[], args: string[]) {
  const server = await serve(script);
  const terminal = TmuxTerminal.start({
    args: [...args, ...fakeFlags(server)],
    cwd: tempDir(),
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
  });
  return { fake: server, term: terminal };
}

/** The question is on screen, stays there, and no "thinking Ns" timer runs over it. */
async function assertQuestionStays(term: TmuxTerminal): Promise<void> {
  const first = await term.waitFor(APPROVAL_LINE, "the approval question");
  assert.match(first, /^allow\? bash> echo approved-call$/m, first);
  await new Promise((resolve) => setTimeout(resolve, SPINNER_TICKS_MS));
  const later = term.screen();
  assert.match(later, APPROVAL_LINE, later);
  assert.doesNotMatch(later, /thinking \d+s/, later);
  assert.equal(later, first, "nothing redrew the screen while the question waited");
}

const TOOL_CALL_WITHOUT_TEXT: ScriptStep[] = [
  { reply: { toolCalls: [{ name: "bash", arguments: { command: "echo approved-call" } }] } },
  { reply: { text: "it printed approved-call" } },
];

test("chat: a tool call with no text before it shows its approval question, with no spinner over it", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await start(TOOL_CALL_WITHOUT_TEXT, []);
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("run it");
  term.send(["Enter"]);
  await assertQuestionStays(term);
  term.type("y");
  term.send(["Enter"]);
  await term.waitFor(/it printed approved-call/);
  assert.match(fake.requests[1].body.messages.at(-1).content, /approved-call/);
});

test("one-shot at a terminal: the approval question shows, with no spinner over it", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await start(TOOL_CALL_WITHOUT_TEXT, ["-p", "run it"]);
  await assertQuestionStays(term);
  term.type("y");
  term.send(["Enter"]);
  await term.waitFor(/^\[exit 0\]$/m, "the run ending");
  assert.match(term.screen(), /^it printed approved-call$/m);
  assert.match(fake.requests[1].body.messages.at(-1).content, /approved-call/);
});

test("chat: twelve approvals in one turn print no MaxListenersExceededWarning", { skip: needs("tmux") }, async () => {
  const CALLS = 12;
  const steps: ScriptStep[] = Array.from({ length: CALLS }, (_, i) => ({
    reply: { toolCalls: [{ name: "bash", arguments: { command: `echo call-${i}` } }] },
  }));
  const { fake, term } = await start([...steps, { reply: { text: "twelve done" } }], []);
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("go");
  term.send(["Enter"]);
  for (let i = 0; i < CALLS; i++) {
    await term.waitFor(new RegExp(`^allow\\? bash> echo call-${i}$`, "m"), `question ${i + 1}`);
    term.type("y");
    term.send(["Enter"]);
  }
  const screen = await term.waitFor(/twelve done/);
  assert.doesNotMatch(screen, /MaxListenersExceededWarning|memory leak/);
  assert.equal(fake.requests.length, CALLS + 1);
});

/** A chat asked to "run it", waiting at the approval question of the script's first call. */
async function chatAtApproval(script: ScriptStep[]) {
  const started = await start(script, []);
  await started.term.waitFor(/^>\s*$/m, "the first prompt");
  started.term.type("run it");
  started.term.send(["Enter"]);
  await started.term.waitFor(APPROVAL_LINE, "the approval question");
  return started;
}

test("chat: 'ok' at the approval question runs the call (it was a refusal whose reason was 'ok')", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await chatAtApproval(TOOL_CALL_WITHOUT_TEXT);
  term.type("ok");
  term.send(["Enter"]);
  await term.waitFor(/it printed approved-call/);
  assert.match(fake.requests[1].body.messages.at(-1).content, /approved-call/);
});

test("chat: Esc at the approval question interrupts; the model is told the call was interrupted, not that the user said so", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await chatAtApproval([TOOL_CALL_WITHOUT_TEXT[0], { reply: { text: "understood" } }]);
  term.send(["Escape"]);
  await term.waitFor(/^interrupted$/m, "the interrupt");
  term.type("never mind");
  term.send(["Enter"]);
  await term.waitFor(/understood/);
  const toolResult = fake.requests[1].body.messages.find((message: any) => message.role === "tool");
  assert.equal(toolResult.content, "The user interrupted before this tool call ran.");
});
