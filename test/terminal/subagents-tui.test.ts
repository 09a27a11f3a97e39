// Subagents in a real terminal (tmux) through the built CLI against the fake server: each running
// child is a live block (header with its clock, calls and tokens; its latest activity) redrawn in
// place, two at once; a child that ends collapses to one summary line; Esc interrupts the rest.
// Without escape sequences (NO_COLOR) the children's calls are plain lines.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { byConversation, type ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { arrival, taskCall, text } from "../support/subagent-steps.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** A step that answers only once the test opens the gate (bounded by `arrival`'s limit). */
function gate(answer: string): { open(): void; step: ScriptStep } {
  const go = arrival("the test's go-ahead to the subagent");
  const step: ScriptStep = async () => {
    await go.arrived;
    return text(answer);
  };
  return { open: go.arrive, step };
}

/** A terminal's environment with colour on: live blocks move the cursor, so only where escape sequences are welcome. */
function colourEnv(): Record<string, string> {
  const env = cleanEnv() as Record<string, string>;
  delete env.NO_COLOR;
  return { ...env, TERM: "xterm-256color" };
}

const linesStarting = (screen: string, prefix: string) => screen.split("\n").filter((line) => line.startsWith(prefix));

test("two subagents at once show as live blocks, one with its denied call; each collapses to a summary line, Esc interrupting the other", {
  skip: needs("tmux"),
}, async () => {
  const alphaAnswer = gate("alpha looked around");
  const fake = await serve(
    byConversation({
      "PARENT:": [
        {
          reply: {
            toolCalls: [
              taskCall("call_a", { prompt: "ALPHA: look around", tools: ["read_file"] }),
              taskCall("call_b", { prompt: "BETA: wait for it" }),
            ],
          },
        },
      ],
      "ALPHA:": [
        { reply: { toolCalls: [{ id: "sneak", name: "bash", arguments: { command: "touch marker" } }] } },
        alphaAnswer.step,
      ],
      "BETA:": [{ hang: true }],
    }),
  );
  const cwd = tempDir();
  const env = colourEnv();
  const chat = TmuxTerminal.start({ args: ["-y", ...fakeFlags(fake)], cwd, env });
  await chat.waitFor(/^>\s*$/m, "the prompt");
  chat.type("PARENT: split the work");
  chat.send(["Enter"]);

  // Both blocks at once: ALPHA has made one model call (15 tokens) and one call it was refused.
  const alphaBlock =
    /^▸ task: ALPHA: look around · (\d+\.\ds) · 1 call · 15 tokens\n {4}✗ Error: there is no tool named "bash"\. Available tools: read_file\.$/m;
  const running = await chat.waitFor(alphaBlock, "ALPHA's live block with its refused call");
  assert.match(running, /^▸ task: BETA: wait for it · \d+\.\ds · 0 calls · 0 tokens$/m);
  assert.equal(linesStarting(running, "task: ALPHA").length, 0, "the block stands for the task call's own line");

  // The clock moves, and the block is redrawn where it was, not printed again.
  const firstClock = running.match(alphaBlock)?.[1];
  const later = await chat.waitFor(
    new RegExp(`^▸ task: ALPHA: look around · (?!${firstClock?.replace(".", "\\.")} )\\d+\\.\\ds · 1 call`, "m"),
    "ALPHA's clock moving on",
  );
  assert.equal(linesStarting(later, "▸ task: ALPHA").length, 1, later);
  assert.equal(linesStarting(later, "▸ task: BETA").length, 1, later);

  // ALPHA ends: its block becomes one summary line; BETA's block stays live below it.
  alphaAnswer.open();
  const oneDone = await chat.waitFor(
    /^✓ task: ALPHA: look around · 1 call · 30 tokens · \d+\.\ds$/m,
    "ALPHA's summary",
  );
  assert.equal(linesStarting(oneDone, "▸ task: ALPHA").length, 0, oneDone);
  await chat.waitFor(/✓ task: ALPHA[\s\S]*^▸ task: BETA: wait for it · /m, "BETA still live below");

  // Esc interrupts the rest: BETA collapses as interrupted, no live block is left, the prompt returns.
  chat.send(["Escape"]);
  const after = await chat.waitFor(
    /^✗ task: BETA: wait for it · interrupted · 0 calls · 0 tokens · \d+\.\ds$[\s\S]*^interrupted$[\s\S]*^>\s*$/m,
    "BETA interrupted, then the prompt",
  );
  assert.deepEqual(linesStarting(after, "▸ "), [], after);
  assert.deepEqual(
    [...linesStarting(after, "✓ task:"), ...linesStarting(after, "✗ task:")].map((line) => line.slice(0, 14)),
    ["✓ task: ALPHA:", "✗ task: BETA: "],
  );
  assert.equal(existsSync(join(cwd, "marker")), false, "the tool ALPHA was not given never ran");
  chat.type("/exit");
  chat.send(["Enter"]);
  await chat.waitFor(/\[exit 0\]/, "the end of the chat");

  // A resumed chat replays the conversation: no child runs, so each task call shows as its own line.
  const resumed = TmuxTerminal.start({ args: [...fakeFlags(fake), "-c"], cwd, env });
  const replay = await resumed.waitFor(/^task: BETA: wait for it$[\s\S]*^>\s*$/m, "the replayed task calls");
  assert.match(replay, /^task: ALPHA: look around\n {2}alpha looked around$/m, replay);
  resumed.type("/exit");
  resumed.send(["Enter"]);
  await resumed.waitFor(/\[exit 0\]/, "the end of the resumed chat");
});

test("an approval question for one subagent stays whole while another works and ends; the blocks and its summary come after the answer", {
  skip: needs("tmux"),
}, async () => {
  const betaMayRead = arrival("the test's go-ahead to BETA");
  const betaAnswered = arrival("BETA's second request");
  const fake = await serve(
    byConversation({
      "PARENT:": [
        {
          reply: {
            toolCalls: [
              taskCall("call_a", { prompt: "ALPHA: run it", tools: ["bash"] }),
              taskCall("call_b", { prompt: "BETA: read the notes" }),
            ],
          },
        },
        text("Both finished."),
      ],
      "ALPHA:": [
        { reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo approved-run" } }] } },
        text("alpha ran it"),
      ],
      "BETA:": [
        async () => {
          await betaMayRead.arrived;
          return { reply: { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] } };
        },
        () => {
          betaAnswered.arrive();
          return text("beta read them");
        },
      ],
    }),
  );
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "hi\n");
  const chat = TmuxTerminal.start({ args: ["--sandbox", "off", ...fakeFlags(fake)], cwd, env: colourEnv() });
  await chat.waitFor(/^>\s*$/m, "the prompt");
  chat.type("PARENT: two things");
  chat.send(["Enter"]);
  await chat.waitFor(/^allow\? bash> echo approved-run[\s\S]*\[y\]es {2}\[n\]o.*> $/m, "ALPHA's approval question");
  // BETA reads and ends while the question is open.
  betaMayRead.arrive();
  await betaAnswered.arrived;
  chat.type("y");
  chat.send(["Enter"]);
  const after = await chat.waitFor(/^Both finished\.$[\s\S]*^>\s*$/m, "the parent's answer, then the prompt");
  const lines = after.split("\n");
  const asked = lines.findIndex((line) => line.startsWith("allow? bash> echo approved-run"));
  const answered = lines.findIndex((line, index) => index > asked && /\[y\]es {2}\[n\]o.*> y$/.test(line));
  assert.ok(asked >= 0 && answered > asked, `the answer on the question's own line; the screen was:\n${after}`);
  assert.ok(
    lines.slice(asked, answered).every((line) => !/^(▸|✓|✗) /.test(line)),
    `nothing drawn into the question; the screen was:\n${after}`,
  );
  const betaDone = lines.findIndex((line) => /^✓ task: BETA: read the notes · 1 call · 30 tokens · /.test(line));
  const alphaDone = lines.findIndex((line) => /^✓ task: ALPHA: run it · 1 call · 30 tokens · /.test(line));
  assert.ok(betaDone > answered && alphaDone > answered, `both summaries after the answer; the screen was:\n${after}`);
  assert.deepEqual(linesStarting(after, "▸ "), [], after);
});

test("without escape sequences (NO_COLOR) a child's calls are plain lines and its end one summary line", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve(
    byConversation({
      "PARENT:": [
        { reply: { toolCalls: [taskCall("call_g", { prompt: "GAMMA: read the notes" })] } },
        text("All read."),
      ],
      "GAMMA:": [
        { reply: { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] } },
        text("the notes say hi"),
      ],
    }),
  );
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "hi\n");
  const run = TmuxTerminal.start({
    args: [...fakeFlags(fake), "-p", "PARENT: read"],
    cwd,
    env: { ...colourEnv(), NO_COLOR: "1" },
  });
  const screen = await run.waitFor(/\[exit 0\]/, "the end of the run");
  assert.match(screen, /^task: GAMMA: read the notes$/m, "the task call's own line");
  assert.match(screen, /^ {2}task › read notes\.txt/m, "the child's call, one plain line");
  assert.match(screen, /^✓ task: GAMMA: read the notes · 1 call · 30 tokens · \d+\.\ds$/m);
  assert.deepEqual(linesStarting(screen, "▸ "), [], "no live block without escape sequences");
  assert.match(screen, /^All read\.$/m);
});
