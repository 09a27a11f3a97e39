// `/model` in the chat with plans signed in to (issue 43): a chat on Anthropic (a key) lists the
// Copilot and ChatGPT plans' models beside its own, `/model copilot:gpt-4.1` goes on with the
// conversation on Copilot's strict fake, `/model anthropic:…` comes back, the history converted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

test("chat: /model lists the signed-in plans' models and switches to one and back", {
  skip: needs("tmux"),
}, async () => {
  const signIn = await startSignIn();
  const copilot = await serve([(request) => signIn.copilotRefusal(request) ?? { reply: { text: "copilot here" } }]);
  copilot.persona = PERSONAS.openai();
  const anthropic = await serve([{ reply: { text: "claude first" } }, { reply: { text: "claude back" } }]);
  anthropic.persona = PERSONAS.anthropic();
  anthropic.models = ["claude-sonnet-4-5", "claude-opus-4-1"];
  const env = cleanEnv({ ...signIn.env(copilot.url), ANTHROPIC_API_KEY: "sk-ant-test-key" }) as Record<string, string>;
  for (const login of [
    ["login", "copilot"],
    ["login", "chatgpt", "--device"],
  ]) {
    const run = await runCli(login, { env });
    assert.equal(run.code, 0, run.stderr);
  }
  const chat = TmuxTerminal.start({
    args: ["--trust", "--provider", "anthropic", "--base-url", anthropic.url, "--model", "claude-sonnet-4-5"],
    cwd: tempDir(),
    env: { ...env, TERM: "xterm-256color" },
    columns: 160,
    rows: 60,
  });
  await chat.waitFor(/> $/m, "the chat prompt");
  chat.type("hello");
  chat.send(["Enter"]);
  await chat.waitFor(/claude first[\s\S]*^> *$/m, "Claude's answer");

  chat.type("/model");
  chat.send(["Enter"]);
  const screen = await chat.waitFor(/signed in to copilot[\s\S]*copilot:gpt-4\.1[\s\S]*^> *$/m, "the plans' models");
  assert.match(screen, /signed in to chatgpt \(switch with \/model chatgpt:<model>/, screen);
  assert.match(screen, /chatgpt:gpt-5\.1-codex/, screen);
  assert.match(screen, /anthropic offers \(\* in use\):\s+claude-opus-4-1\s+\* claude-sonnet-4-5/, screen);

  chat.type("/model copilot:gpt-4.1");
  chat.send(["Enter"]);
  const switched = await chat.waitFor(/now using copilot · gpt-4\.1.*$/m, "the switch to Copilot");
  assert.match(switched, /copilot plan: no per-token price/, "a plan shows no $0 price");
  chat.type("and you?");
  chat.send(["Enter"]);
  await chat.waitFor(/copilot here[\s\S]*^> *$/m, "Copilot's answer");
  assert.match(JSON.stringify(copilot.requests[0].body.messages), /hello.*claude first.*and you\?/s);

  chat.type("/model anthropic:claude-sonnet-4-5");
  chat.send(["Enter"]);
  await chat.waitFor(/now using anthropic · claude-sonnet-4-5/, "the switch back");
  chat.type("back to you");
  chat.send(["Enter"]);
  await chat.waitFor(/claude back[\s\S]*^> *$/m, "Claude's second answer");
  const last = anthropic.requests.at(-1);
  assert.match(
    JSON.stringify(last?.conversation),
    /hello.*claude first.*copilot here.*back to you/s,
    JSON.stringify(anthropic.requests.map((r) => [r.method, r.path, r.thread])),
  );
  assert.equal(last?.headers["x-api-key"], "sk-ant-test-key");
  assert.deepEqual([...copilot.errors, ...anthropic.errors], [], "every request accepted");
});
