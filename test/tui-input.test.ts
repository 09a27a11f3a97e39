// Terminal input pieces: key parsing (pastes split across reads), completion, attachments.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_ATTACHMENT_BYTES, expandFileMentions } from "../src/ui/attachments.ts";
import { paletteFor } from "../src/ui/colors.ts";
import { completeInput } from "../src/ui/completion.ts";
import { KeyParser } from "../src/ui/keys.ts";
import { commandNames, runSlashCommand, type ChatControls } from "../src/ui/slash-commands.ts";
import { tempDir } from "./helpers.ts";

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
