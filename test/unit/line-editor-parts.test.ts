// The line editor's pure parts: what editing keys do to the text, what a key does at the prompt,
// history recall and Ctrl-R, the queue of a running turn, and the drawing's wrapping. The terminal
// part is driven in tmux (tui-terminal.test.ts, tui-chat-session.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyCompletion, completeInput } from "../../src/ui/editor/completion.ts";
import { drawInput, fitsOneRowAtBoth } from "../../src/ui/editor/draw-input.ts";
import {
  applyEditKey,
  bufferWith,
  type EditBuffer,
  type EditKey,
  insertAtCursor,
  isOnFirstLine,
  isOnLastLine,
  moveVertically,
} from "../../src/ui/editor/edit-buffer.ts";
import { HISTORY_SIZE, HistorySearch, InputHistory } from "../../src/ui/editor/input-history.ts";
import type { Key } from "../../src/ui/editor/keys.ts";
import { type PromptAction, type PromptPlace, PromptState } from "../../src/ui/editor/prompt-state.ts";
import { TypeAhead } from "../../src/ui/editor/type-ahead.ts";
import { columnAfter, typeAheadRows } from "../../src/ui/render/pinned-input.ts";
import { isSlashCommand } from "../../src/ui/slash-commands.ts";

/** `text` with the cursor where `|` is. */
function at(marked: string): EditBuffer {
  return { text: marked.replace("|", ""), cursor: marked.indexOf("|") };
}

function keys(buffer: EditBuffer, ...names: EditKey[]): EditBuffer {
  return names.reduce(applyEditKey, buffer);
}

test("edit buffer: deleting keys cut around the cursor, as readline's emacs bindings do", () => {
  assert.deepEqual(keys(at("ab|c"), "backspace"), at("a|c"));
  assert.deepEqual(keys(at("|abc"), "backspace"), at("|abc"));
  assert.deepEqual(keys(at("ab|c"), "delete"), at("ab|"));
  assert.deepEqual(keys(at("say hello  |world"), "ctrl-w"), at("say |world"));
  assert.deepEqual(keys(at("say hello|"), "word-backspace"), at("say |"));
  assert.deepEqual(keys(at("one\ntw|o\nthree"), "ctrl-u"), at("one\n|o\nthree"));
  assert.deepEqual(keys(at("one\ntw|o\nthree"), "ctrl-k"), at("one\ntw|\nthree"));
  assert.deepEqual(insertAtCursor(at("a|c"), "b\n"), at("ab\n|c"));
});

test("edit buffer: moving keys stay inside the text and the current line", () => {
  assert.deepEqual(keys(at("|ab"), "left"), at("|ab"));
  assert.deepEqual(keys(at("ab|"), "right"), at("ab|"));
  assert.deepEqual(keys(at("one\ntw|o"), "home"), at("one\n|two"));
  assert.deepEqual(keys(at("o|ne\ntwo"), "ctrl-e"), at("one|\ntwo"));
  assert.deepEqual(keys(at("say hello |world"), "word-left"), at("say |hello world"));
  assert.deepEqual(keys(at("say| hello world"), "word-right"), at("say hello| world"));
  assert.deepEqual(moveVertically(at("long line\nab|"), -1), at("lo|ng line\nab"));
  assert.deepEqual(moveVertically(at("long li|ne\nab"), 1), at("long line\nab|"));
  assert.equal(isOnFirstLine(at("a|b\nc")), true);
  assert.equal(isOnLastLine(at("a|b\nc")), false);
  assert.deepEqual(bufferWith("abc"), at("abc|"));
});

test("history: Up walks back through entries, Down returns to what was being typed", () => {
  const history = new InputHistory(["first", "second"]);
  assert.equal(history.recall(1, "draft"), undefined);
  assert.equal(history.recall(-1, "draft"), "second");
  assert.equal(history.recall(-1, "second"), "first");
  assert.equal(history.recall(-1, "first"), undefined);
  assert.equal(history.recall(1, "first"), "second");
  assert.equal(history.recall(1, "second"), "draft");
  history.add("third");
  history.add("third");
  history.add("   ");
  assert.equal(history.recall(-1, ""), "third");
  assert.equal(history.recall(-1, "third"), "second", "a repeat and a blank line are not kept");
});

test("history keeps the newest HISTORY_SIZE entries", () => {
  const history = new InputHistory(Array.from({ length: HISTORY_SIZE + 5 }, (_, index) => `line ${index}`));
  history.add("newest");
  assert.equal(history.newest, HISTORY_SIZE - 1);
  assert.equal(history.entry(0), "line 6");
});

test("Ctrl-R: a query finds the newest match, Ctrl-R again an older one; no match gives back the input", () => {
  const history = new InputHistory(["git status", "npm test", "git push"]);
  const search = new HistorySearch(history, "typed");
  assert.equal(search.label, "(history search) '': ");
  search.type("git");
  assert.equal(search.found, "git push");
  search.older();
  assert.equal(search.result, "git status");
  search.older();
  assert.equal(search.result, "git status", "no older match: the match stays");
  search.type("x");
  assert.equal(search.found, "");
  assert.equal(search.result, "typed");
  assert.equal(search.label, "(history search, no match) 'gitx': ");
  search.erase();
  assert.equal(search.found, "git push");
});

test("type-ahead: a message and a command entered while a turn runs wait in their own queues", () => {
  const typeAhead = new TypeAhead();
  assert.equal(typeAhead.enter("  ", isSlashCommand), undefined, "a blank line is not queued");
  assert.deepEqual(typeAhead.enter("/cost", isSlashCommand), { text: "/cost", isCommand: true });
  assert.deepEqual(typeAhead.enter(" also check the tests ", isSlashCommand), {
    text: "also check the tests",
    isCommand: false,
  });
  assert.equal(typeAhead.takeForPrompt(), "also check the tests");
  assert.equal(typeAhead.takeForPrompt(), "/cost", "the command waits for its prompt");
  assert.equal(typeAhead.takeForPrompt(), undefined, "nothing queued: the prompt starts with what was typed");
  assert.deepEqual(typeAhead.takeMessages(), []);
});

test("type-ahead: the loop takes queued messages at a step boundary, and they are gone", () => {
  const typeAhead = new TypeAhead();
  typeAhead.enter("one", isSlashCommand);
  assert.deepEqual(typeAhead.takeMessages(), ["one"]);
  assert.equal(typeAhead.takeForPrompt(), undefined);
});

test("type-ahead rows: broken at clusters narrower than the terminal, wide characters whole, the cursor an inverse cell, the rows around it kept", () => {
  const style = { dim: (text: string) => text, inverse: (text: string) => `[${text}]` };
  // 10 columns: rows of at most 9, so the cursor never waits in the pending-wrap state.
  assert.deepEqual(typeAheadRows({ prefix: "› ", text: "中文中文x", cursor: 3 }, 10, 5, style), ["› 中文中", "[文]x"]);
  assert.deepEqual(typeAheadRows({ prefix: "› ", text: "abcdef", cursor: 6 }, 10, 5, style), ["› abcdef[ ]"]);
  assert.deepEqual(typeAheadRows({ prefix: "› ", text: "abcdefg", cursor: 7 }, 10, 5, style), ["› abcdefg", "[ ]"]);
  assert.deepEqual(typeAheadRows({ prefix: "› ", text: "a👍🏽\tb\nsecond", cursor: 1 }, 20, 5, style), [
    "› a[👍🏽] b",
    "… second",
  ]);
  const many = { prefix: "› ", text: "1\n2\n3\n4\n5", cursor: 2 };
  assert.deepEqual(typeAheadRows(many, 20, 2, style), ["› 1", "… [2]"], "the cursor's row is shown");
  assert.deepEqual(typeAheadRows({ ...many, cursor: 9 }, 20, 2, style), ["… 4", "… 5[ ]"]);
});

test("the column after streamed output: wrapped as the terminal does, a wide character whole; unknown with a tab or a full row", () => {
  assert.equal(columnAfter("\x1b[2mabc\x1b[22m", 10), 3, "styles take no column");
  assert.equal(columnAfter("abcdefghijkl", 10), 2);
  assert.equal(columnAfter("abcdefghi中", 10), 2, "the wide character that does not fit goes to the next row");
  assert.equal(columnAfter("", 10), 0);
  assert.equal(columnAfter("a\tb", 10), undefined);
  assert.equal(columnAfter("abcdefghij", 10), undefined, "a full row: the cursor waits to wrap");
});

test("Tab: a single candidate completes with a space; nothing to add leaves the input for a listing", () => {
  const commands = ["/clear", "/compact", "/cost"];
  const buffer = at("/cl|");
  const single = completeInput(buffer.text, buffer.cursor, "/", commands);
  assert.ok(single);
  assert.deepEqual(applyCompletion(buffer, single), at("/clear |"));
  const several = completeInput("/c", 2, "/", commands);
  assert.ok(several);
  assert.equal(applyCompletion(at("/c|"), several), undefined);
});

test("drawing: a line that wraps puts the cursor on its second row; continuation lines are led and dimmed", () => {
  const dim = (text: string) => `<${text}>`;
  const wrapped = drawInput({ prefix: "> ", text: "abcdefghijkl", cursor: 12 }, { columns: 10, cursorRow: 0, dim });
  assert.equal(wrapped.cursorRow, 1);
  assert.equal(wrapped.output, "\x1b[?25l\r\x1b[J> abcdefghijkl\r\x1b[4C\x1b[?25h");
  const twoLines = drawInput({ prefix: "> ", text: "ab\ncd", cursor: 1 }, { columns: 80, cursorRow: 3, dim });
  assert.equal(twoLines.cursorRow, 0);
  assert.equal(twoLines.output, "\x1b[?25l\x1b[3A\r\x1b[J> ab\r\n<… >cd\x1b[1A\r\x1b[3C\x1b[?25h");
  assert.equal(fitsOneRowAtBoth({ prefix: "> ", text: "short", cursor: 0 }, 80, 40), true);
  assert.equal(fitsOneRowAtBoth({ prefix: "> ", text: "a\nb", cursor: 0 }, 80, 80), false);
});

const CHAT_PROMPT: PromptPlace = { isChatPrompt: true, isTurnRunning: false };
const QUESTION_IN_TURN: PromptPlace = { isChatPrompt: false, isTurnRunning: true };

/** A prompt over `history`, with `typed` typed into it. */
function promptWith(typed: string, history: string[] = []): PromptState {
  const input = new PromptState(new InputHistory(history), { cwd: "/", commands: ["/clear", "/compact", "/cost"] });
  input.begin(typed);
  return input;
}

function press(input: PromptState, place: PromptPlace, ...keys: Key[]): PromptAction[] {
  return keys.map((key) => input.press(key, place));
}

test("prompt: Enter sends the input; after a trailing backslash it starts a new line; on nothing it sends nothing", () => {
  const continued = promptWith("first line\\");
  assert.deepEqual(press(continued, CHAT_PROMPT, { name: "enter", isInBurst: false }), [{ type: "draw" }]);
  assert.deepEqual(continued.buffer, at("first line\n|"));
  const typed = promptWith("");
  press(typed, CHAT_PROMPT, { name: "text", text: "fix it" }, { name: "paste", text: "\r\nplease" });
  assert.deepEqual(typed.buffer, at("fix it\nplease|"));
  assert.deepEqual(press(typed, CHAT_PROMPT, { name: "enter", isInBurst: false }), [{ type: "submit" }]);
  assert.deepEqual(press(promptWith("  "), CHAT_PROMPT, { name: "enter", isInBurst: false }), [{ type: "none" }]);
  assert.deepEqual(
    press(promptWith(""), QUESTION_IN_TURN, { name: "enter", isInBurst: false }),
    [{ type: "queue-type-ahead" }],
    "an empty Enter at a question was meant for the text typed before it appeared",
  );
});

test("prompt: Ctrl-C clears the input, then warns, then quits; any other key in between disarms it", () => {
  const input = promptWith("draft");
  const note = { type: "note", text: "press Ctrl-C again to quit (or Ctrl-D, or /exit)" };
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "ctrl-c" }, { name: "ctrl-c" }), [{ type: "draw" }, note]);
  assert.equal(input.buffer.text, "");
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "left" }, { name: "ctrl-c" }), [{ type: "draw" }, note]);
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "ctrl-c" }), [{ type: "close" }]);
  assert.deepEqual(press(promptWith("draft"), QUESTION_IN_TURN, { name: "ctrl-c" }, { name: "escape" }), [
    { type: "interrupt" },
    { type: "interrupt" },
  ]);
  assert.deepEqual(press(promptWith(""), CHAT_PROMPT, { name: "escape" }), [{ type: "none" }]);
});

test("prompt: Ctrl-D quits at the empty chat prompt and deletes under the cursor elsewhere", () => {
  assert.deepEqual(press(promptWith(""), CHAT_PROMPT, { name: "ctrl-d" }), [{ type: "close" }]);
  assert.deepEqual(press(promptWith(""), QUESTION_IN_TURN, { name: "ctrl-d" }), [{ type: "draw" }]);
  const input = promptWith("ab");
  press(input, CHAT_PROMPT, { name: "home" }, { name: "ctrl-d" });
  assert.deepEqual(input.buffer, at("|b"));
});

test("prompt: Up and Down recall history on the first and last line and move between lines inside the input", () => {
  const input = promptWith("one\ntwo", ["older"]);
  press(input, CHAT_PROMPT, { name: "up" });
  assert.deepEqual(input.buffer, at("one|\ntwo"), "Up on the second line moves to the first");
  press(input, CHAT_PROMPT, { name: "up" });
  assert.deepEqual(input.buffer, at("older|"));
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "up" }), [{ type: "none" }], "nothing older");
  press(input, CHAT_PROMPT, { name: "down" });
  assert.deepEqual(input.buffer, at("one\ntwo|"), "Down past the newest gives back what was typed");
});

test("prompt: Ctrl-R searches the history; Enter takes the match, another key takes it and acts on it, Esc cancels", () => {
  const draw = { type: "draw" };
  const input = promptWith("typed", ["git status", "npm test"]);
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "ctrl-r" }, { name: "text", text: "git" }), [draw, draw]);
  assert.deepEqual(
    input.view("> ", (text) => `<${text}>`),
    {
      prefix: "<(history search) 'git': >",
      text: "git status",
      cursor: 10,
    },
  );
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "enter", isInBurst: false }), [draw]);
  assert.deepEqual(input.view("> ", String), { prefix: "> ", ...at("git status|") });
  const left = { name: "left" } as const;
  press(input, CHAT_PROMPT, { name: "ctrl-r" }, { name: "text", text: "npm" });
  assert.deepEqual(press(input, CHAT_PROMPT, left), [{ type: "draw", next: left }]);
  assert.deepEqual(input.buffer, at("npm test|"), "the match is taken; the terminal presses Left again on it");
  press(input, CHAT_PROMPT, { name: "ctrl-r" }, { name: "text", text: "x" }, { name: "escape" });
  assert.deepEqual(input.buffer, at("npm test|"), "Esc gives back the input the search started from");
  assert.deepEqual(press(promptWith("", ["a"]), QUESTION_IN_TURN, { name: "ctrl-r" }), [{ type: "none" }]);
});

test("prompt: Tab completes a single command, and lists several when there is nothing to add", () => {
  const input = promptWith("/cl");
  assert.deepEqual(press(input, CHAT_PROMPT, { name: "tab" }), [{ type: "draw" }]);
  assert.deepEqual(input.buffer, at("/clear |"));
  assert.deepEqual(press(promptWith("/co"), CHAT_PROMPT, { name: "tab" }), [
    { type: "list", candidates: ["/compact", "/cost"] },
  ]);
  assert.deepEqual(press(promptWith("plain"), CHAT_PROMPT, { name: "tab" }), [{ type: "none" }]);
});
