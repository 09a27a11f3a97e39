// `!cmd` at the chat's prompt (Claude Code's bash mode) in a real terminal: the command runs as
// the model's bash call would (asked, under the deny rules, sandboxed), its output is shown, and
// the command with its output joins the conversation as the person's context, recorded in the
// session file, so the next prompt's request carries it; no model call is made for it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

test("!cmd runs a shell command from the prompt: asked, denied by a rule, its output offered to the model", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([{ reply: { text: "I see what you ran." } }]);
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  mkdirSync(join(cwd, ".claude"));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
  writeFileSync(join(cwd, "keep.txt"), "kept");
  const term = TmuxTerminal.start({
    args: fakeFlags(fake),
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: home },
    columns: 200,
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("!echo bang-out");
  term.send(["Enter"]);
  await term.waitFor(/^allow\? bash> echo bang-out$/m, "the question, as for the model's call");
  term.type("y");
  term.send(["Enter"]);
  await term.waitFor(/^bang-out$/m, "the output shown");

  term.type("!rm -f keep.txt");
  term.send(["Enter"]);
  const refused = await term.waitFor(/not run: [^\n]*keep\.txt[^\n]*\n/, "the refusal");
  assert.match(refused, /Bash\(rm:\*\) in [^\n]*\.claude\/settings\.json/, "the rule and its file, not cut");
  assert.ok(existsSync(join(cwd, "keep.txt")));
  assert.equal(fake.requests.length, 0, "no model call for a !cmd");

  term.type("what did I run?");
  term.send(["Enter"]);
  await term.waitFor(/I see what you ran\./, "the reply");
  const users = fake.requests[0].body.messages
    .filter((message: { role: string }) => message.role === "user")
    .map((message: { content: string }) => message.content);
  assert.equal(
    users[0],
    "<bash-input>echo bang-out</bash-input>\n<bash-stdout>bang-out</bash-stdout><bash-stderr></bash-stderr>",
  );
  assert.match(users[1], /^<bash-input>rm -f keep\.txt<\/bash-input>\n<bash-stdout>[^<]*Bash\(rm:\*\)/);
  assert.equal(users[2], "what did I run?");
  const [file] = readdirSync(join(home, "sessions")).filter((name) => name.endsWith(".jsonl"));
  assert.match(readFileSync(join(home, "sessions", file), "utf8"), /<bash-input>echo bang-out<\/bash-input>/);
  term.type("/exit");
  term.send(["Enter"]);
  await term.waitFor(/\[exit 0\]/, "the end of the chat");
});
