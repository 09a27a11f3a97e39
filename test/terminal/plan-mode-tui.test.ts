// Plan mode in the chat (issue 42), in a real terminal: Shift-Tab cycles ask → edits → plan and the
// status line shows the mode; a plan the model proposes is rendered as Markdown with its four
// choices, and each does what it says: keep planning with feedback, carry it out (the mode back to
// what it was, the plan in the context), carry it out in a fresh context (the plan the first
// message of a new session), stop. /mode names a mode.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

const planCall = (id: string, plan: string): ScriptStep => ({
  reply: { toolCalls: [{ id, name: "exit_plan_mode", arguments: { plan } }] },
});
const CHOICES = /^choose \[1-4, 3 <feedback>\]: *$/m;
type Body = { messages: { role: string; content: unknown }[] };
/** The person's last words: plan mode's per-call reminder (core/call-reminder.ts) left out, wherever it went. */
const REMINDER = /\s*<system-reminder>[\s\S]*?<\/system-reminder>\s*/g;
const lastUserText = (body: Body) =>
  body.messages
    .filter((m) => m.role === "user")
    .map((m) => String(m.content).replace(REMINDER, ""))
    .filter((text) => text !== "")
    .at(-1) ?? "";

test("chat: Shift-Tab to plan mode, a rendered plan and its four choices", { skip: needs("tmux") }, async () => {
  const fake = await serve([
    // 1: in plan mode an edit is refused, then the plan.
    { reply: { toolCalls: [{ id: "w0", name: "write_file", arguments: { path: "early.txt", content: "x" } }] } },
    planCall("p1", "# Add a greeting\n\n1. Write `hello.txt`\n2. **Check** it"),
    // 2: feedback: the model plans again.
    planCall("p2", "# Write hi.txt instead\n\n- one file"),
    // 3: carried out in edits mode (the mode before plan): the edit runs without a question.
    { reply: { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "hi.txt", content: "hi\n" } }] } },
    { reply: { text: "Carried out." } },
    // 4: planned again, carried out in a fresh context.
    planCall("p3", "# Second plan\n\nRename the file."),
    { reply: { text: "Fresh start done." } },
    // 5: planned again, stopped.
    planCall("p4", "# Third plan"),
  ]);
  const cwd = tempDir();
  // Colours on (no NO_COLOR), so the plan is rendered as the chat renders answers.
  const env = cleanEnv() as Record<string, string>;
  delete env.NO_COLOR;
  const chat = TmuxTerminal.start({
    args: ["--trust", ...fakeFlags(fake)],
    cwd,
    env: { ...env, TERM: "xterm-256color" },
    columns: 160,
  });
  await chat.waitFor(/> $/m, "the chat prompt");
  chat.send(["BTab"]);
  await chat.waitFor(/^edits mode: edits in the workspace run too; commands ask/m, "edits mode");
  chat.send(["BTab"]);
  await chat.waitFor(/^plan mode: nothing changes: the model studies the code/m, "plan mode");
  chat.type("add a greeting");
  chat.send(["Enter"]);
  let screen = await chat.waitFor(CHOICES, "the plan's choices");
  // Rendered: the heading without its #, the bold without its stars; the tool's line; the mode in the status line.
  assert.match(screen, /^Add a greeting$/m, screen);
  assert.match(screen, /^2\. Check it$/m, screen);
  assert.match(screen, /plan: Add a greeting/, screen);
  assert.match(screen, /fake-model · plan mode · context/, screen);
  assert.match(
    screen,
    /1 carry it out \(edits mode\) · 2 in a fresh context \(edits mode\) · 3 keep planning · 4 stop/,
    screen,
  );
  // The refused write's result went back (the reminder, a message of its own, follows it).
  assert.match(JSON.stringify(fake.requests[1].body.messages), /plan mode: nothing may change/);
  assert.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /<system-reminder>/);
  assert.equal(existsSync(join(cwd, "early.txt")), false);

  chat.type("3 use hi.txt instead");
  chat.send(["Enter"]);
  await chat.waitFor(/^Write hi\.txt instead$/m, "the second plan");
  assert.equal(
    lastUserText(fake.requests[2].body),
    "The plan is not approved yet. Keep planning, then propose it again with the plan tool. My feedback: use hi.txt instead",
  );
  chat.type("1");
  chat.send(["Enter"]);
  screen = await chat.waitFor(/Carried out\.[\s\S]*^> *$/m, "the plan carried out");
  assert.match(screen, /^edits mode: edits in the workspace run too/m, screen);
  assert.doesNotMatch(screen, /allow\?/, "edits mode: the edit ran without a question");
  assert.equal(readFileSync(join(cwd, "hi.txt"), "utf8"), "hi\n");
  assert.equal(lastUserText(fake.requests[3].body), "The plan is approved. Carry it out now.");
  // The plan stays in the context it was made in.
  assert.match(JSON.stringify(fake.requests[3].body.messages), /Write hi\.txt instead/);
  assert.match(screen, /fake-model · edits mode · context/, screen);

  chat.send(["BTab"]);
  await chat.waitFor(/^plan mode: nothing changes(?![\s\S]*^plan mode: nothing changes)/m, "plan mode again");
  chat.type("next");
  chat.send(["Enter"]);
  await chat.waitFor(/^Second plan$/m, "the second plan");
  chat.type("2");
  chat.send(["Enter"]);
  screen = await chat.waitFor(/Fresh start done\.[\s\S]*^> *$/m, "the fresh context");
  assert.match(screen, /^new session [\w-]+; edits mode/m, screen);
  const fresh = fake.requests[6].body as Body;
  assert.deepEqual(
    fresh.messages.filter((m) => m.role !== "system").map((m) => m.role),
    ["user"],
    "a fresh context: the plan is the first and only message",
  );
  assert.match(lastUserText(fresh), /^Carry out this plan[^\n]*\n\n# Second plan\n\nRename the file\.$/);

  chat.send(["BTab"]);
  chat.type("third");
  chat.send(["Enter"]);
  await chat.waitFor(/^Third plan$/m, "the third plan");
  chat.type("4");
  chat.send(["Enter"]);
  await chat.waitFor(/^stopped, nothing runs; plan mode: nothing changes/m, "stopped");
  chat.type("/mode ask");
  chat.send(["Enter"]);
  await chat.waitFor(/^ask mode: reads run; edits and commands ask/m, "/mode ask");
  chat.type("/mode all");
  chat.send(["Enter"]);
  await chat.waitFor(/\/mode takes ask, edits, plan \(all only with --yes\)/, "/mode all refused");
  assert.equal(fake.requests.length, 8, "stop ran nothing");
});
