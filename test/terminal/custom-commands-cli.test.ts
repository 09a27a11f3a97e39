// Custom slash commands through the built CLI against the fake server: Markdown files in
// $HARNESS_HOME/commands and .harness/commands expand into the prompt, with $ARGUMENTS and $1…,
// in one-shot runs and in the chat (where /help and Tab know them); /init asks for AGENTS.md.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** The last user message of a chat-completions request. */
function promptOf(request: RecordedRequest): string {
  return request.body.messages.filter((message: { role: string }) => message.role === "user").at(-1).content;
}

/** A user command with placeholders and a project command without, in a repository. */
function commandWorld() {
  const env = cleanEnv();
  const userCommands = join(env.HARNESS_HOME as string, "commands");
  mkdirSync(userCommands, { recursive: true });
  writeFileSync(
    join(userCommands, "review.md"),
    "---\ndescription: Review one file for bugs\nargument-hint: <file> [focus]\n---\nReview $1 for bugs. Everything you were told: $ARGUMENTS\n",
  );
  writeFileSync(join(userCommands, "help.md"), "takes a built-in name\n");
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, ".harness", "commands"), { recursive: true });
  writeFileSync(join(repo, ".harness", "commands", "fix-tests.md"), "Run the tests and fix what fails.\n");
  return { env, repo };
}

test("a command file expands into the prompt: $1 and $ARGUMENTS filled in, arguments of a command without placeholders added after it", async () => {
  const { env, repo } = commandWorld();
  const fake = await serve([{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
  const review = await runCli([...fakeFlags(fake), "-p", '/review "src/my file.ts" look at the loop'], {
    cwd: repo,
    env,
  });
  assert.equal(review.code, 0, review.stderr);
  assert.equal(
    promptOf(fake.requests[0]),
    'Review src/my file.ts for bugs. Everything you were told: "src/my file.ts" look at the loop',
  );
  assert.match(review.stderr, /warning: command .*commands\/help\.md left out: \/help is a built-in command/);

  const fix = await runCli([...fakeFlags(fake), "-p", "/fix-tests only the parser"], { cwd: repo, env });
  assert.equal(fix.code, 0, fix.stderr);
  assert.equal(promptOf(fake.requests[1]), "Run the tests and fix what fails.\n\nonly the parser");

  const notACommand = await runCli([...fakeFlags(fake), "-p", "/usr/bin/env is broken"], { cwd: repo, env });
  assert.equal(notACommand.code, 0, notACommand.stderr);
  assert.equal(promptOf(fake.requests[2]), "/usr/bin/env is broken");
});

test("/init asks the model to write or update AGENTS.md, or CLAUDE.md in a Claude Code project", async () => {
  const fake = await serve([{ reply: { text: "written" } }, { reply: { text: "updated" } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "/init"]);
  assert.equal(result.code, 0, result.stderr);
  const prompt = promptOf(fake.requests[0]);
  assert.match(prompt, /^Write or update AGENTS\.md at the root of this repository/);
  assert.doesNotMatch(prompt, /\$ARGUMENTS/);
  const claudeProject = tempDir();
  mkdirSync(join(claudeProject, ".git"));
  writeFileSync(join(claudeProject, "CLAUDE.md"), "Use pnpm.");
  const claude = await runCli([...fakeFlags(fake), "-p", "/init"], { cwd: claudeProject });
  assert.equal(claude.code, 0, claude.stderr);
  assert.match(promptOf(fake.requests[1]), /^Write or update CLAUDE\.md at the root of this repository/);
});

test("in chat, /help lists the command files, Tab completes them, and the expanded prompt is what the model gets", {
  skip: needs("tmux"),
}, async () => {
  const { env, repo } = commandWorld();
  const fake = await serve([{ reply: { text: "Reviewed." } }]);
  const terminal = TmuxTerminal.start({
    args: fakeFlags(fake),
    cwd: repo,
    env: { ...(env as Record<string, string>), TERM: "xterm-256color" },
    columns: 120,
  });
  await terminal.waitFor(/> $/m, "the chat prompt");
  terminal.type("/help");
  terminal.send(["Enter"]);
  const help = await terminal.waitFor(/\/fix-tests/, "/help");
  assert.match(help, /^\/review <file> \[focus\] +Review one file for bugs$/m);
  assert.match(help, /^\/fix-tests +Run the tests and fix what fails\.$/m);
  assert.match(help, /^\/init +ask the model to write or update AGENTS\.md/m);
  terminal.type("/rev");
  terminal.send(["Tab"]);
  await terminal.waitFor(/> \/review $/m, "the completed name");
  terminal.type("a.ts");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Reviewed\./, "the reply");
  assert.equal(promptOf(fake.requests[0]), "Review a.ts for bugs. Everything you were told: a.ts");
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
});
