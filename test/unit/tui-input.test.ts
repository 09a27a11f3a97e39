// Terminal input pieces: key parsing (pastes split across reads), completion, attachments.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { expandFileMentions, MAX_ATTACHMENT_BYTES } from "../../src/ui/attachments.ts";
import { paletteFor } from "../../src/ui/colors.ts";
import type { ChatControls } from "../../src/ui/commands/command-spec.ts";
import { completeInput } from "../../src/ui/editor/completion.ts";
import { type Key, KeyParser } from "../../src/ui/editor/keys.ts";
import { RawKeyInput } from "../../src/ui/editor/raw-key-input.ts";
import { commandNames, runSlashCommand } from "../../src/ui/slash-commands.ts";
import { tempDir } from "../support/helpers.ts";

test("keys: a bracketed paste split anywhere across reads is one paste with its newlines", () => {
  const input = "\x1b[200~line one\rline two\x1b[201~\r";
  // From 2: a read of ESC alone is the Esc key (terminals send a paste marker whole).
  for (let cut = 2; cut < input.length; cut++) {
    const parser = new KeyParser();
    const keys = [...parser.parse(input.slice(0, cut)), ...parser.parse(input.slice(cut))];
    assert.deepEqual(
      keys.map((key) => key.name),
      ["paste", "enter"],
      `cut at ${cut}`,
    );
    assert.deepEqual(keys[0], { name: "paste", text: "line one\rline two" });
  }
});

test("keys: arrows, Alt-Enter, a lone Esc and control keys", () => {
  const parser = new KeyParser();
  assert.deepEqual(parser.parse("\x1b[A"), [{ name: "up" }]);
  assert.deepEqual(parser.parse("\x1b\r"), [{ name: "newline" }]);
  assert.deepEqual(parser.parse("\x1b"), [{ name: "escape" }]);
  assert.deepEqual(parser.parse("\x12"), [{ name: "ctrl-r" }]);
  assert.deepEqual(parser.parse("\r"), [{ name: "enter", isInBurst: false }]);
  assert.deepEqual(parser.parse("ab\rcd"), [
    { name: "text", text: "ab" },
    { name: "enter", isInBurst: true },
    { name: "text", text: "cd" },
  ]);
});

/** The keys a RawKeyInput hands on for reads of `chunks`, each read after the paste wait ran out. */
async function keysFor(chunks: string[], gapMs: number): Promise<string[]> {
  // A stream in place of the terminal: RawKeyInput needs setRawMode, which only a TTY has.
  const stdin = Object.assign(new PassThrough(), { setRawMode: () => stdin, isTTY: false });
  const seen: string[] = [];
  const input = new RawKeyInput(stdin as unknown as NodeJS.ReadStream, new PassThrough() as never, {
    onKey: (key: Key) => seen.push(key.name === "text" ? `text:${key.text}` : key.name),
    onPastedNewline: () => seen.push("pasted-newline"),
    onResize: () => {},
  });
  for (const chunk of chunks) {
    stdin.write(chunk);
    await sleep(gapMs);
  }
  await sleep(100);
  input.close();
  return seen;
}

test("keys: an Enter in one read with a control key after it is a pressed Enter, not a pasted newline", async () => {
  // tmux, a fast typist or a loaded machine can deliver Enter and Ctrl-C in one read: that was once
  // an empty line's newline, so Ctrl-C cleared it instead of offering to quit.
  assert.deepEqual(await keysFor(["\r\x03"], 0), ["enter", "ctrl-c"]);
  assert.deepEqual(await keysFor(["hi\r\x1b[A"], 0), ["text:hi", "enter", "up"]);
  // Text after the Enter in the same read, or in the next read before the wait ends: a paste.
  assert.deepEqual(await keysFor(["one\rtwo"], 0), ["text:one", "newline", "text:two"]);
  assert.deepEqual(await keysFor(["one\r", "two"], 0), ["text:one", "pasted-newline", "text:two"]);
  // A control key in the next read: the Enter was pressed.
  assert.deepEqual(await keysFor(["one\r", "\x03"], 0), ["text:one", "enter", "ctrl-c"]);
  // No more input: the Enter, once the wait is over.
  assert.deepEqual(await keysFor(["one\r"], 0), ["text:one", "enter"]);
});

const SLASH_COMMANDS = commandNames([]);

test("completion: slash commands and @paths (folders end in /, hidden files only when asked)", () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, "src"));
  writeFileSync(join(cwd, "src", "main.ts"), "");
  writeFileSync(join(cwd, "README.md"), "");
  writeFileSync(join(cwd, ".env"), "");
  assert.deepEqual(completeInput("/co", 3, cwd, SLASH_COMMANDS)?.candidates, ["/cost", "/compact"]);
  assert.deepEqual(completeInput("look at @", 9, cwd, SLASH_COMMANDS)?.candidates, ["@README.md", "@src/"]);
  assert.deepEqual(completeInput("@src/m", 6, cwd, SLASH_COMMANDS)?.candidates, ["@src/main.ts"]);
  assert.deepEqual(completeInput("@.e", 3, cwd, SLASH_COMMANDS)?.candidates, ["@.env"]);
  assert.equal(completeInput("plain words", 11, cwd, SLASH_COMMANDS), undefined);
});

test("the Tab list names exactly the commands /help lists, prompt commands included", async () => {
  let help = "";
  const output = {
    write: (text: string) => {
      help += text;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const promptCommands = [{ name: "review", description: "review the diff", argumentHint: "[focus]" }];
  await runSlashCommand(
    "/help",
    { promptCommands: () => promptCommands } as unknown as ChatControls,
    output,
    paletteFor(output as NodeJS.WriteStream, {}),
  );
  const listed = [...help.matchAll(/^(\/[a-z]+)/gm)].map((match) => match[1]);
  assert.deepEqual([...listed].sort(), commandNames(promptCommands).sort());
  assert.ok(listed.includes("/review") && listed.includes("/skills"));
  assert.match(help, /^\/review \[focus\] +review the diff$/m);
});

test("attachments: @file appends its text in a fence, bounded; other mentions are left alone", () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.md"), "has ``` inside\n");
  writeFileSync(join(cwd, "big.txt"), "x".repeat(MAX_ATTACHMENT_BYTES + 10));
  writeFileSync(join(cwd, "bin.dat"), Buffer.from([1, 0, 2]));
  assert.equal(
    expandFileMentions("see @a.md, @someone and @bin.dat", cwd, []),
    "see @a.md, @someone and @bin.dat\n\na.md:\n````\nhas ``` inside\n````",
  );
  const big = expandFileMentions("@big.txt", cwd, []);
  assert.ok(
    big.includes(
      `[attachment cut: the first ${MAX_ATTACHMENT_BYTES} of ${MAX_ATTACHMENT_BYTES + 10} bytes; read_file shows the rest]`,
    ),
  );
  assert.ok(big.length < MAX_ATTACHMENT_BYTES + 200);
  assert.equal(expandFileMentions("no mentions", cwd, []), "no mentions");
});
