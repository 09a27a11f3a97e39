// The screen stays true in a real terminal (tmux) at 60 columns: /help and errors are wrapped at
// words (a line the terminal wrapped itself shows as one over-long line in tmux's joined capture),
// and a call with invalid arguments does not glue its error onto the spinner's "thinking" line.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { visibleWidth } from "../../src/ui/text-width.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const COLUMNS = 60;

async function chatAt60(script: ScriptStep[]) {
  const fake = await serve(script);
  const term = TmuxTerminal.start({
    args: ["-y", ...fakeFlags(fake)],
    cwd: tempDir(),
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
    columns: COLUMNS,
    rows: 20,
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  return { fake, term };
}

function overLong(screen: string): string[] {
  return screen.split("\n").filter((line) => visibleWidth(line) > COLUMNS);
}

test("at 60 columns /help is wrapped at words, each help below its command when the columns do not fit side by side", {
  skip: needs("tmux"),
}, async () => {
  const { term } = await chatAt60([]);
  term.type("/help");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^keys:[\s\S]*Ctrl-D[\s\S]*^> $/m, "the whole of /help");
  assert.deepEqual(overLong(screen), [], screen);
  // Too narrow for the two columns side by side: each command's help goes below it, indented.
  assert.match(
    screen,
    /^\/model \[name\]\n {4}list the provider's models \(the one in use marked\), or\n {4}switch to another of them$/m,
    screen,
  );
});

test("at 60 columns an error is wrapped at words, and an invalid call's error is not glued to the spinner", {
  skip: needs("tmux"),
}, async () => {
  const { term } = await chatAt60([
    { reply: { toolCalls: [{ name: "bash", arguments: {} }] } },
    { reply: { text: "tried" } },
    {
      status: 400,
      body: {
        error: {
          message: "this request was refused by the server because of a reason that takes more than one line to tell",
          type: "invalid_request_error",
        },
      },
    },
  ]);
  term.type("go");
  term.send(["Enter"]);
  const first = await term.waitFor(/^tried$[\s\S]*^> $/m, "the answer after the invalid call");
  assert.doesNotMatch(first, /thinking \d+s\S*.*Error|thinking \d+sError/, first);
  term.type("again");
  term.send(["Enter"]);
  const second = await term.waitFor(/^error: [\s\S]*^> $/m, "the error");
  assert.deepEqual(overLong(second), [], second);
});

test("at 60 columns a long command's call line is wrapped at words, whole", { skip: needs("tmux") }, async () => {
  const command = "echo first && echo second && echo third && echo fourth && echo fifth";
  const { term } = await chatAt60([
    { reply: { toolCalls: [{ name: "bash", arguments: { command } }] } },
    { reply: { text: "ran them" } },
  ]);
  term.type("go");
  term.send(["Enter"]);
  const screen = await term.waitFor(/^ran them$[\s\S]*^> $/m, "the answer after the command");
  assert.deepEqual(overLong(screen), [], screen);
  // The call's line, wrapped at words and not cut: every word of the command is on the screen.
  assert.match(screen, /^bash> echo first && echo second && echo third && echo fourth\n&& echo fifth$/m, screen);
});

test("/model re-resolves the context window and the price and says what changed; the next status line and request follow it", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await chatAt60([{ reply: { text: "from mini" } }]);
  term.type("/model gpt-5-mini");
  term.send(["Enter"]);
  await term.waitFor(
    /now using openai · gpt-5-mini: context window 400k \(was\s+\d+k\); \$0\.25\/\$2 per million\s+tokens in\/out/,
    "what the switch changed",
  );
  term.type("hi");
  term.send(["Enter"]);
  // A chat started with --yes shows its mode (all) in the status line.
  await term.waitFor(/^gpt-5-mini · all mode · context <1% of 400k · session/m, "the status line after the switch");
  assert.equal(fake.requests[0].body.model, "gpt-5-mini");
});

test("after -c the status line and /cost give the same session total, earlier runs included", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([{ reply: { text: "first" } }, { reply: { text: "second" } }]);
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const first = await runCli([...fakeFlags(fake), "-p", "one"], { env: cleanEnv({ HARNESS_HOME: home }), cwd });
  assert.equal(first.code, 0, first.stderr);
  const term = TmuxTerminal.start({
    args: [...fakeFlags(fake), "-c"],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: home },
  });
  await term.waitFor(/^>\s*$/m, "the prompt");
  term.type("two");
  term.send(["Enter"]);
  // Each fake reply spends 10 in and 5 out: two runs are 20 and 10.
  await term.waitFor(/^fake-model · context .* · session 20 in, 10 out$/m, "the status line counting both runs");
  term.type("/cost");
  term.send(["Enter"]);
  await term.waitFor(/^this session: tokens: 20 in · 10 out · /m, "/cost with the same total");
});

test("a message queued while a command runs under a pinned plan keeps its note, and no stray plan line is left in the output", {
  skip: needs("tmux"),
}, async () => {
  const plan = [
    { content: "look around", status: "done" },
    { content: "run the slow step", status: "in_progress" },
    { content: "report", status: "pending" },
  ];
  const fake = await serve([
    { reply: { toolCalls: [{ id: "t1", name: "todo", arguments: { items: plan } }] } },
    {
      reply: {
        toolCalls: [
          {
            id: "b1",
            name: "bash",
            arguments: { command: "echo begun; while [ ! -f go ]; do sleep 0.05; done; echo went" },
          },
        ],
      },
    },
    { reply: { text: "noted the extra ask" } },
  ]);
  const cwd = tempDir();
  const term = TmuxTerminal.start({
    args: ["-y", "--sandbox", "off", ...fakeFlags(fake)],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("do the slow thing");
  term.send(["Enter"]);
  await term.waitFor(/^bash> echo begun[\s\S]*^plan: 1\/3 done$/m, "the command running under the plan");
  term.type("also this");
  term.send(["Enter"]);
  await term.waitFor(/^queued: also this/m, "the queued note");
  writeFileSync(join(cwd, "go"), "");
  const screen = await term.waitFor(/noted the extra ask[\s\S]*^> $/m, "the answer");
  assert.match(screen, /^queued: also this \(sent after the running step/m, screen);
  assert.equal(screen.split("\n").filter((line) => line.startsWith("plan: ")).length, 1, screen);
  const lines = screen.split("\n");
  assert.ok(lines.indexOf("plan: 1/3 done") > lines.indexOf("  went"), `the plan stays below the output:\n${screen}`);
  assert.equal(lastUser(fake.requests[2].body), "also this");
});

function lastUser(body: any): string {
  const content = body.messages.filter((message: any) => message.role === "user").at(-1).content;
  return typeof content === "string" ? content : content.map((part: any) => part.text).join("");
}
