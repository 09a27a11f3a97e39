// A setup warning that comes after the chat is on screen (an MCP server failing once the prompt
// is drawn, or while a turn runs) is a line of its own above the prompt or the turn's spinner:
// before, it was written where the cursor stood, on the prompt's row, and the prompt was gone
// (CI, stop 56: folder-trust-cli's chat never showed its prompt again). "Late" is made, not
// timed: the server fails only when the test creates its `fail` file.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const WARNING = /^harness: MCP server "fails" is not available: .*$/m;

/** A chat whose one MCP server exits (so cannot start) once the test creates `fail` in its folder. */
function chatWithFailingServer(args: string[], cwd: string) {
  const home = tempDir("harness-home-");
  const fail = join(cwd, "fail");
  const waitThenExit = `setInterval(() => { if (require("node:fs").existsSync(${JSON.stringify(fail)})) process.exit(1); }, 50)`;
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ mcpServers: { fails: { command: process.execPath, args: ["-e", waitThenExit] } } }),
  );
  // Colours on (no NO_COLOR): the spinner is drawn only where escape sequences are.
  const { NO_COLOR: _, ...env } = cleanEnv({ HARNESS_HOME: home, MCP_TIMEOUT: "600000" }) as Record<string, string>;
  return {
    fail,
    terminal: TmuxTerminal.start({ args, cwd, env: { ...env, TERM: "xterm-256color" }, columns: 80, rows: 24 }),
  };
}

test("a warning at a shown prompt goes above it; what was typed stays and is sent whole", {
  skip: needs("tmux"),
}, async () => {
  const cwd = tempDir();
  const fake = await serve([{ reply: { text: "all done" } }]);
  const { fail, terminal } = chatWithFailingServer(["--trust", ...fakeFlags(fake)], cwd);
  await terminal.waitFor(/^> $/m, "the chat prompt");
  terminal.type("half typed");
  await terminal.waitFor(/^> half typed$/m, "the typed text");
  writeFileSync(fail, "");
  const screen = await terminal.waitFor(WARNING, "the late warning");
  const lines = screen.trimEnd().split("\n");
  const warningRow = lines.findIndex((line) => WARNING.test(line));
  assert.ok(warningRow >= 0, screen);
  assert.equal(lines.at(-1), "> half typed", `the prompt is drawn again under the warning:\n${screen}`);
  assert.ok(lines.length - 1 > warningRow, screen);
  terminal.type(" and finished");
  terminal.send(["Enter"]);
  await terminal.waitFor(/all done/, "the answer");
  const sent = fake.requests[0].body.messages.at(-1);
  assert.equal(sent.content, "half typed and finished");
});

test("a warning while the model is awaited goes above the spinner, which goes on below it", {
  skip: needs("tmux"),
}, async () => {
  const cwd = tempDir();
  const fake = await serve([{ hang: true }, { reply: { text: "all done" } }]);
  const { fail, terminal } = chatWithFailingServer(["--trust", ...fakeFlags(fake)], cwd);
  await terminal.waitFor(/^> $/m, "the chat prompt");
  terminal.type("wait");
  terminal.send(["Enter"]);
  await terminal.waitFor(/^thinking \d+s/m, "the spinner");
  writeFileSync(fail, "");
  await terminal.waitFor(WARNING, "the late warning");
  // A tick later the spinner is drawn again, under the warning, which it leaves whole.
  const screen = await terminal.waitFor(
    /^harness: MCP server "fails"[\s\S]*\nthinking [1-9]\d*s/m,
    "the spinner under it",
  );
  assert.equal(screen.match(/MCP server "fails"/g)?.length, 1, screen);
  assert.match(screen, WARNING);
  terminal.send(["Escape"]);
  await terminal.waitFor(/^> $/m, "the prompt after the interrupt");
  terminal.type("again");
  terminal.send(["Enter"]);
  await terminal.waitFor(/all done/, "the next turn's answer");
});
