// `harness attach` in a real terminal (tmux) is the chat, over a session `harness serve` holds:
// the chat's prompt and question, answered here; a run another client starts is drawn as it
// comes while what was typed here waits; a question answered elsewhere leaves this screen; Esc
// interrupts in the server; /model and /undo act there; /detach leaves the session running.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { startServe, watchUntil } from "../support/serve.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const PROMPT = /^>\s*$/m;

test("attach: the chat over a served session, steered here and from elsewhere at once", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([
    {
      reply: {
        text: "Writing.",
        toolCalls: [{ id: "w", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }],
      },
    },
    { reply: { text: "Wrote **a.txt**." } },
    { reply: { text: "Hello from the page." } },
    { reply: { toolCalls: [{ id: "b", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] } },
    { reply: { text: "Wrote b.txt too." } },
    { stall: { text: "Thinking it over at length, slowly" }, afterEvents: 2 },
  ]);
  const served = await startServe(fake);
  const cwd = tempDir();
  const session = await served.client.createSession({ cwd });
  const term = TmuxTerminal.start({
    args: ["attach", session.id],
    cwd,
    env: {
      TERM: "xterm-256color",
      HARNESS_HOME: served.env.HARNESS_HOME as string,
      HOME: served.env.HOME as string,
    },
  });
  await term.waitFor(PROMPT, "the chat prompt");
  assert.match(term.screen(), /harness · openai · fake-model · \/exit or Ctrl-D quits/);
  const say = async (line: string, until: RegExp) => {
    term.type(line);
    term.send(["Enter"]);
    return term.waitFor(until);
  };

  // A prompt from here; its question is the chat's own, answered here.
  let screen = await say("write a", /\[y\]es {2}\[n\]o/);
  assert.match(screen, /allow\? write a\.txt/);
  screen = await say("y", /Wrote a\.txt\./);
  assert.equal(existsSync(join(cwd, "a.txt")), true);

  // Half a line typed here; a prompt from another client (the page) runs and is drawn; the half line stays.
  await term.waitFor(PROMPT);
  term.type("half a line");
  await served.client.prompt(session.id, "hello from the page");
  screen = await term.waitFor(/Hello from the page\./);
  assert.match(screen, /> hello from the page/);
  await term.waitFor(/Hello from the page\.\n(?:.*\n)*> half a line\s*$/, "the typed text back at the prompt");
  term.send(["C-u"]);

  // A question from a run started elsewhere, answered elsewhere: it leaves this screen.
  const before = (await served.client.session(session.id)).lastEventId;
  await served.client.prompt(session.id, "write b");
  const asked = await watchUntil(served.client, session.id, (event) => event.type === "question", { after: before });
  await term.waitFor(/allow\? write b\.txt/);
  const question = asked.at(-1)!.event as { questionId: string };
  await served.client.answer(session.id, question.questionId, "yes");
  screen = await term.waitFor(/Wrote b\.txt too\./);
  assert.match(screen, /answered elsewhere: yes/);

  // Esc interrupts the running prompt in the server.
  await term.waitFor(PROMPT);
  await say("think", /thinking \d+s/);
  term.send(["Escape"]);
  await term.waitFor(/interrupted/);
  await term.waitFor(PROMPT);
  assert.equal((await served.client.session(session.id)).running, false);

  // /model and /undo act on the server's session.
  await say("/model other-model", /now using openai · other-model/);
  assert.equal((await served.client.session(session.id)).model, "other-model");
  await say("/undo", /undid 1 turn\(s\) in the server/);
  // The interrupted turn changed nothing; undoing three more takes back b.txt and a.txt.
  await say("/undo 3", /undid 3 turn\(s\) in the server: .*b\.txt/);
  assert.equal(existsSync(join(cwd, "b.txt")), false);
  // A command the API has no call for says so.
  await say("/compact", /\/compact is not available in an attached session/);

  // Detaching leaves the session in the server.
  await say("/detach", /detached; .* goes on in the server/);
  await term.waitFor(/\[exit 0\]/);
  const after = await served.client.listSessions();
  assert.deepEqual(
    after.map((s) => s.id),
    [session.id],
  );
});
