// The language servers in the chat (tmux): an edit that brings a new error shows one short line
// under the edit, and /lsp lists the session's servers, their state and what they found. The
// server is the test's own (support/fake-language-server.mjs), declared in the user's settings.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { fakeServerDeclaration } from "../support/language-servers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

test("an edit's new error is one line in the chat, and /lsp shows the server and its diagnostics", {
  skip: needs("tmux"),
}, async () => {
  const cwd = tempDir("harness-lsp-chat-");
  writeFileSync(join(cwd, "notes.fk"), "fine\nfine\n");
  const env: Record<string, string> = {
    ...(cleanEnv() as Record<string, string>),
    TERM: "xterm-256color",
    HARNESS_LSP_WAIT_MS: "60000",
  };
  writeFileSync(
    join(env.HARNESS_HOME, "settings.json"),
    JSON.stringify({
      lspServers: {
        fake: fakeServerDeclaration(),
      },
    }),
  );
  const fake = await serve([
    { reply: { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.fk" } }] } },
    {
      reply: {
        toolCalls: [
          {
            id: "e1",
            name: "edit_file",
            arguments: { path: "notes.fk", old_string: "fine\nfine", new_string: "BAD\nfine" },
          },
        ],
      },
    },
    { reply: { text: "Edited." } },
  ]);
  const chat = TmuxTerminal.start({ args: ["-y", "--sandbox", "off", ...fakeFlags(fake)], cwd, env, columns: 160 });
  try {
    await chat.waitFor(/> $/m, "the chat prompt");
    chat.type("break the notes");
    chat.send(["Enter"]);
    const screen = await chat.waitFor(/Edited\./, "the reply after the edit");
    assert.match(screen, /^lsp: notes\.fk: 1 new error: line 1: BAD is not allowed$/m);
    await chat.waitFor(/> $/m, "the prompt again");
    chat.type("/lsp");
    chat.send(["Enter"]);
    const listed = await chat.waitFor(/line 1: BAD is not allowed\n(.*\n)*> $/m, "the /lsp listing");
    assert.match(listed, /^fake {2}running {2}.*node.*$/m);
    assert.match(listed, /^ {2}notes\.fk: 1 error, 0 warnings\n {4}line 1: BAD is not allowed$/m);
  } finally {
    chat.kill();
  }
});
