// The network question in a real terminal (tmux), with the real sandbox, relay and proxy: a
// command that reaches a host sandbox.network does not list is put to the person with that
// command named; "project" saves the host for this folder; /network then shows the grant and the
// connection with its command; the session file records it; and a later headless run in the same
// folder is not refused for want of the list (it gets as far as resolving the name).
//
// *Decision*: the host is `pypi.example`, which never resolves (RFC 2606), so the test needs no
// network: the question comes before resolution, and the refusal after it says the name does
// not resolve, not that it is unlisted.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const CURL = "curl -sS --max-time 20 http://pypi.example/simple/; echo curl-ended";

const script = (text: string): ScriptStep[] => [
  { reply: { toolCalls: [{ name: "bash", arguments: { command: CURL } }] } },
  { reply: { text } },
];

test("chat: the network question names the command; project saves it; /network shows it", {
  skip: needs("tmux", "bwrap", "curl"),
}, async () => {
  const home = tempDir("harness-home-");
  const workspace = realpathSync(tempDir());
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "settings.json"), JSON.stringify({ sandbox: { network: ["allowed.example"] } }));
  const server = await serve(script("the command ran"));
  const term = TmuxTerminal.start({
    args: ["--yes", ...fakeFlags(server)],
    cwd: workspace,
    env: { TERM: "xterm-256color", HARNESS_HOME: home },
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("fetch the index");
  term.send(["Enter"]);
  const question = await term.waitFor(/\[p\]roject: always allow pypi\.example:80 in this project/, "the question");
  assert.match(question, /allow\? network> pypi\.example:80 from: curl -sS --max-time 20 http:\/\/pypi\.example/);
  assert.match(question, /\[a\]lways allow pypi\.example:80 this session/);
  term.type("p");
  term.send(["Enter"]);
  await term.waitFor(/the command ran/, "the reply after the command");
  term.type("/network");
  term.send(["Enter"]);
  const shown = await term.waitFor(/latest connections/, "/network's answer");
  assert.match(shown, /sandbox\.network allows: allowed\.example/);
  assert.match(shown, /allowed always in this project: pypi\.example:80/);
  await term.waitFor(/refused pypi\.example:80 {2}curl -sS/, "the connection with its command");
  term.type("/exit");
  term.send(["Enter"]);
  await term.waitFor(/^\[exit 0\]$/m, "the chat ending");

  const grants = JSON.parse(readFileSync(join(home, "network-grants.json"), "utf8"));
  assert.deepEqual(grants.folders[workspace], { entries: ["pypi.example:80"] });
  const sessions = join(home, "sessions");
  const files = readdirSync(sessions, { recursive: true }).filter((name) => String(name).endsWith(".jsonl"));
  const lines = files.flatMap((name) =>
    readFileSync(join(sessions, String(name)), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line)),
  );
  const record = lines.find((line) => line.type === "network");
  assert.equal(record?.host, "pypi.example");
  assert.equal(record?.command, CURL);
  assert.match(record?.why ?? "", /pypi\.example does not resolve/);

  // Headless in the same folder: nobody to ask, and the saved grant lets it past the list.
  const later = await serve(script("again"));
  const result = await runCli(["--yes", "-p", "fetch again", ...fakeFlags(later)], {
    cwd: workspace,
    env: cleanEnv({ HARNESS_HOME: home }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /network: refused pypi\.example:80 for curl -sS .*pypi\.example does not resolve/);
  assert.doesNotMatch(result.stderr, /not on the sandbox\.network list/);
  // The command's result names the refusal next to it: the model sees it, and the trace shows it.
  assert.match(
    later.requests[1].body.messages.at(-1).content,
    /\[network: refused pypi\.example:80 \(pypi\.example does not resolve/,
  );
});
