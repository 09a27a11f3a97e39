// UserPromptSubmit hooks, from the side of a Claude Code user who copied in a prompt guard
// (`.claude/settings.json`) and believes a refused prompt never reaches the model. Through the
// built CLI against the fake server: a block (exit 2 or JSON) sends nothing, says why, and
// exits 2 headless; what a hook adds reaches the model beside the prompt; in a chat the refused
// line comes back in the input and the conversation holds only what was sent.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  fakeFlags,
  fakeServerPerTest,
  jsonLines,
  runCli,
  shellScript,
  tempDir,
  writeJson,
} from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { openTrustedChat } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** A Claude Code project whose prompt hooks are `commands`, in order; its Stop hook leaves `stopped`, leaving a chat `left-the-chat`. */
function claudeProject(commands: string[]): string {
  const cwd = tempDir("prompt-hook-");
  writeJson(join(cwd, ".claude", "settings.json"), {
    hooks: {
      UserPromptSubmit: [{ hooks: commands.map((command) => ({ type: "command", command })) }],
      Stop: [{ hooks: [{ type: "command", command: "touch stopped" }] }],
      SessionEnd: [{ matcher: "prompt_input_exit", hooks: [{ type: "command", command: "touch left-the-chat" }] }],
    },
  });
  return cwd;
}

/** The text of every user message the model was sent in the fake's `request`-th request (OpenAI chat shape). */
const userTexts = (body: { messages: Array<{ role: string; content: unknown }> }) =>
  body.messages
    .filter((message) => message.role === "user")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? "").join("|"),
    );

test("a prompt guard that exits 2 keeps the prompt from the model: exit 2, its reason on stderr, blockedBy in the stream, no Stop hook", async () => {
  const fake = await serve([{ reply: { text: "the model saw it" } }]);
  const cwd = claudeProject(["./guard.sh"]);
  shellScript(
    cwd,
    "guard.sh",
    'cat > prompt-input.json\ncase "$(cat prompt-input.json)" in *password*) echo "prompts must not carry passwords" >&2; exit 2;; esac',
  );
  const result = await runCli(
    ["--trust", ...fakeFlags(fake), "--output", "stream-json", "-p", "the password is hunter2"],
    {
      cwd,
    },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.equal(fake.requests.length, 0, "nothing was sent");
  assert.match(
    result.stderr,
    /error: the prompt was not sent: the UserPromptSubmit hook "\.\/guard\.sh" blocked it: prompts must not carry passwords/,
  );
  const events = jsonLines(result.stdout);
  assert.deepEqual(
    events.map((event) => event.type),
    ["start", "done"],
  );
  const done = events[1];
  assert.equal(done.blockedBy, "UserPromptSubmit");
  assert.equal(done.reason, "error");
  assert.equal(done.turns, 0);
  assert.equal(existsSync(join(cwd, "stopped")), false, "no Stop hook after a prompt that was never answered");
  const payload = JSON.parse(readFileSync(join(cwd, "prompt-input.json"), "utf8"));
  assert.equal(typeof payload.session_id, "string");
  assert.equal(payload.session_id, events[0].sessionId);
  assert.deepEqual(
    { ...payload, session_id: undefined },
    { session_id: undefined, cwd, hook_event_name: "UserPromptSubmit", prompt: "the password is hunter2" },
  );

  // The same guard lets another prompt through: the run is an ordinary one.
  const allowed = await runCli(["--trust", ...fakeFlags(fake), "-p", "hello"], { cwd });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stdout, "the model saw it\n");
  assert.deepEqual(userTexts(fake.requests[0].body), ["hello"]);
  assert.equal(existsSync(join(cwd, "stopped")), true);
  assert.equal(existsSync(join(cwd, "left-the-chat")), false, "a one-shot's SessionEnd reason is other");
});

test('a JSON {"decision": "block"} refuses the prompt too, in --output json and --format claude', async () => {
  const fake = await serve([{ reply: { text: "never" } }, { reply: { text: "never" } }]);
  const cwd = claudeProject([`cat >/dev/null; echo '{"decision":"block","reason":"no deploys on Friday"}'`]);
  const json = await runCli(["--trust", ...fakeFlags(fake), "--output", "json", "-p", "deploy"], { cwd });
  assert.equal(json.code, 2, json.stderr);
  const done = JSON.parse(json.stdout);
  assert.equal(done.type, "done");
  assert.equal(done.blockedBy, "UserPromptSubmit");
  assert.match(done.error, /blocked it: no deploys on Friday$/);
  const claude = await runCli(
    ["--trust", ...fakeFlags(fake), "--output", "json", "--format", "claude", "-p", "deploy"],
    { cwd },
  );
  assert.equal(claude.code, 2, claude.stderr);
  const result = JSON.parse(claude.stdout);
  assert.equal(result.is_error, true);
  assert.match(result.errors[0], /no deploys on Friday/);
  assert.equal(fake.requests.length, 0);
});

test("what prompt hooks add (plain stdout, additionalContext) reaches the model after the prompt; a failing hook is reported and does not block", async () => {
  const fake = await serve([{ reply: { text: "noted" } }]);
  const cwd = claudeProject([
    "cat >/dev/null; echo 'branch: main'",
    "cat >/dev/null; echo 'broken' >&2; exit 1",
    `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket ABC-1"}}'`,
  ]);
  const result = await runCli(["--trust", ...fakeFlags(fake), "-p", "fix the bug"], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "noted\n");
  assert.match(
    result.stderr,
    /UserPromptSubmit hook ".*exit 1" \(.*settings\.json\) failed with exit code 1: broken; the prompt was sent/,
  );
  assert.deepEqual(userTexts(fake.requests[0].body), [
    "fix the bug\n\n<user-prompt-submit-hook>\nbranch: main\n</user-prompt-submit-hook>\n\n<user-prompt-submit-hook>\nticket ABC-1\n</user-prompt-submit-hook>",
  ]);
});

test("in a chat, a refused prompt shows the hook's reason and comes back in the input; sent again, only it reaches the model", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([{ reply: { text: "Sent on the second try." } }]);
  // Refuses the first time only, as a guard asking for a ticket number would until the person adds one.
  const cwd = claudeProject(["./once.sh"]);
  shellScript(
    cwd,
    "once.sh",
    'cat >/dev/null\n[ -e refused ] && exit 0\ntouch refused\necho "add a ticket number" >&2\nexit 2',
  );
  const terminal = await openTrustedChat(fake, cwd);
  terminal.type("rename the module");
  terminal.send(["Enter"]);
  const refused = await terminal.waitFor(
    /blocked it: add a ticket number\n(.*\n)*> rename the module$/m,
    "the refusal",
  );
  assert.match(refused, /error: the prompt was not sent/);
  assert.equal(fake.requests.length, 0);
  terminal.send(["Enter"]);
  await terminal.waitFor(/Sent on the second try\./, "the reply");
  assert.deepEqual(
    userTexts(fake.requests[0].body),
    ["rename the module"],
    "the refused try is not in the conversation",
  );
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/\[exit 0\]/, "the end of the chat");
  assert.equal(existsSync(join(cwd, "left-the-chat")), true, "SessionEnd with reason prompt_input_exit");
});
