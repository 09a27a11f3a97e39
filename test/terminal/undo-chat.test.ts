// /undo and /redo in a real terminal (tmux) against the fake model: a turn edits a file with
// edit_file, changes another with sed and deletes a third with rm; /undo lists the three files,
// asks, and puts them back, and the turn leaves the conversation; /redo reverses it.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";
import { CHANGING_TURN, readIfThere as read } from "../support/undo-helpers.ts";

const PROMPT = /^>\s*$/m;

// The terminal is ended by the shared teardown (tui-tmux.ts registers it), the server by fakeServerPerTest.
const serve = fakeServerPerTest();

test("/undo lists the files, asks, and restores all three and the conversation; /redo reverses it", {
  skip: needs("tmux"),
}, async () => {
  const server = await serve([{ reply: { text: "hi there" } }, ...CHANGING_TURN, { reply: { text: "fresh start" } }]);
  const cwd = tempDir("harness-undo-chat-");
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "b.txt"), "beta\n");
  writeFileSync(join(cwd, "c.txt"), "gamma\n");
  const files = () => [read(cwd, "a.txt"), read(cwd, "b.txt"), read(cwd, "c.txt")];
  const term = TmuxTerminal.start({
    args: ["-y", ...fakeFlags(server)],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
  });
  await term.waitFor(PROMPT, "the first prompt");
  const say = async (line: string, until: RegExp) => {
    term.type(line);
    term.send(["Enter"]);
    return term.waitFor(until, String(until));
  };

  await say("hello", /hi there/);
  await say("change the three files", /changed all three/);
  await term.waitFor(/session \d+ in.*\n>\s*$/, "the prompt after the turn");
  assert.deepEqual(files(), ["ALPHA\n", "BETA\n", undefined]);

  // A "no" changes nothing.
  let screen = await say("/undo", /^undo\? \[y\/N\] *$/m);
  assert.match(
    screen,
    /undo the last turn; files that will change:\n {2}changed {3}a\.txt\n {2}changed {3}b\.txt\n {2}restored {2}c\.txt\n/,
  );
  await say("n", /^nothing was undone$/m);
  assert.deepEqual(files(), ["ALPHA\n", "BETA\n", undefined]);

  /** The screen once `pattern` has shown `times` times. */
  const shown = (pattern: RegExp, times: number) => new RegExp(`(${pattern.source}[\\s\\S]*){${times}}`, "m");
  const QUESTION = /^undo\? \[y\/N\]/;
  await say("/undo", shown(QUESTION, 2));
  await say("y", /^undid 1 turn: the files and the conversation are back to before it/m);
  assert.deepEqual(files(), ["alpha\n", "beta\n", "gamma\n"]);

  screen = await say("/redo", /^redo\? \[y\/N\] *$/m);
  assert.match(
    screen,
    /redo the undone turn; files that will change:\n {2}changed {3}a\.txt\n {2}changed {3}b\.txt\n {2}deleted {3}c\.txt\n/,
  );
  await say("y", /^redid 1 turn$/m);
  assert.deepEqual(files(), ["ALPHA\n", "BETA\n", undefined]);

  await say("/undo", shown(QUESTION, 3));
  await say("y", shown(/^undid 1 turn/, 2));
  assert.deepEqual(files(), ["alpha\n", "beta\n", "gamma\n"]);

  // The undone turn has left the conversation the model sees.
  await say("what now?", /fresh start/);
  const sent = server.requests[4].body.messages
    .filter((m: any) => m.role !== "system")
    .map((m: any) => ({ role: m.role, content: m.content }));
  assert.deepEqual(sent, [
    { role: "user", content: "hello" },
    { role: "assistant", content: "hi there" },
    { role: "user", content: "what now?" },
  ]);
});
