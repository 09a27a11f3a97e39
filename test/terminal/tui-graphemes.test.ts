// Emoji, combining marks and CJK at the chat prompt, in a real terminal (tmux) against the fake
// server: the editor moves and deletes whole characters as seen, counts their columns as the
// terminal does, and never sends or keeps half of a surrogate pair.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const PROMPT = /^>\s*$/m;
const serve = fakeServerPerTest();

async function openChat(replies: string[]) {
  const fake = await serve(replies.map((text) => ({ reply: { text } })));
  const term = TmuxTerminal.start({
    args: fakeFlags(fake),
    cwd: tempDir(),
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
  });
  await term.waitFor(PROMPT, "the first prompt");
  return { fake, term };
}

function lastUserText(body: any): string {
  const users = body.messages.filter((message: any) => message.role === "user");
  const content = users.at(-1).content;
  return typeof content === "string" ? content : content.map((part: any) => part.text).join("");
}

test("Left, Right, Backspace and Delete take whole emoji (skin tone, ZWJ family) and a trailing 🎉; only valid text is sent", {
  skip: needs("tmux"),
}, async () => {
  const { fake, term } = await openChat(["noted"]);
  term.type("a👨‍👩‍👧b👍🏽c");
  term.send(["Left", "BSpace", "Left", "Left", "DC"]);
  term.send(["End"]);
  term.type(" smile 🎉");
  term.send(["BSpace"]);
  term.type("e\u0301!");
  term.send(["Left", "BSpace"]);
  term.send(["Enter"]);
  await term.waitFor(/noted/);
  assert.equal(fake.requests.length, 1);
  assert.equal(lastUserText(fake.requests[0].body), "abc smile !");
});

test("the cursor stands after wide characters where the terminal drew them (CJK, ✅, 🚀 two columns each)", {
  skip: needs("tmux"),
}, async () => {
  const { term } = await openChat([]);
  term.type("中✅🚀x");
  await term.waitFor(/^> 中✅🚀x\s*$/m, "the typed text");
  term.send(["Left"]);
  // "> " then 2 + 2 + 2 columns: the cursor waits on the x.
  await waitForCursorColumn(term, 8);
  term.send(["Up"]); // one line only: Up recalls history (none), the cursor stays
  term.send(["Left"]);
  await waitForCursorColumn(term, 6);
});

async function waitForCursorColumn(term: TmuxTerminal, column: number): Promise<void> {
  for (let tries = 0; tries < 100 && term.cursor().column !== column; tries++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(term.cursor().column, column, term.screen());
}

test("a session saved with half an emoji is repaired on load: -c sends U+FFFD in its place, the server accepts it", async () => {
  const fake = await serve([{ reply: { text: "first" } }, { reply: { text: "second" } }]);
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  const env = cleanEnv({ HARNESS_HOME: home });
  const first = await runCli([...fakeFlags(fake), "-p", "smile HALF"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const [name] = readdirSync(join(home, "sessions")).filter((file) => file.endsWith(".jsonl"));
  const file = join(home, "sessions", name);
  // What an older harness wrote after Backspace split 🎉: its high half, escaped as JSON.stringify does.
  writeFileSync(file, readFileSync(file, "utf8").replace("smile HALF", "smile \\ud83c"));
  const second = await runCli([...fakeFlags(fake), "-c", "-p", "again"], { env, cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(fake.requests.length, 2);
  const users = fake.requests[1].body.messages.filter((message: any) => message.role === "user");
  assert.deepEqual(
    users.map((message: any) => lastUserText({ messages: [message] })),
    ["smile \uFFFD", "again"],
  );
});
