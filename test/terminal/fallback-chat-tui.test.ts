// A fallback chain in the chat (issue 42), in a real terminal: Gemini overloaded past its retries,
// then OpenAI out of quota, then Anthropic answers. The chat shows one line per switch, the answer,
// and the model now in use in its status line; the next prompt goes straight to that model.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import { cleanEnv, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

/** Gemini overloaded: 503 UNAVAILABLE (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes). */
const GEMINI_OVERLOADED = {
  status: 503,
  body: { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
};

/** OpenAI's used-up quota (https://platform.openai.com/docs/guides/error-codes/api-errors): never retried. */
const OPENAI_QUOTA = {
  status: 429,
  body: {
    error: {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    },
  },
};

test("chat: overloaded Gemini → OpenAI out of quota → Claude answers, and the next prompt stays on Claude", {
  skip: needs("tmux"),
}, async () => {
  const gemini = await serve(Array.from({ length: 5 }, () => GEMINI_OVERLOADED)); // the first try and its 4 retries
  gemini.persona = PERSONAS.gemini();
  const openai = await serve([OPENAI_QUOTA]);
  openai.persona = PERSONAS.openai();
  const anthropic = await serve([
    { reply: { text: "claude took over the chat" } },
    { reply: { text: "claude again" } },
  ]);
  anthropic.persona = PERSONAS.anthropic();
  const cwd = tempDir();
  const env = cleanEnv() as Record<string, string>;
  const config = {
    providers: {
      google: { api: "gemini", baseUrl: `${gemini.url}/v1beta` },
      quota: { api: "chat", baseUrl: openai.baseUrl },
      claude: { api: "anthropic", baseUrl: anthropic.url },
    },
  };
  writeFileSync(join(env.HARNESS_HOME, "config.json"), JSON.stringify(config));
  const chat = TmuxTerminal.start({
    args: [
      "--trust",
      "--provider",
      "google",
      "--model",
      "gemini-3-pro-preview",
      "--fallback-model",
      "quota:gpt-5-mini,claude:claude-sonnet-4-5",
    ],
    cwd,
    env: { ...env, TERM: "xterm-256color" },
    columns: 200,
  });
  let screen = await chat.waitFor(/> $/m, "the chat prompt");
  assert.match(screen, /gemini-3-pro-preview/, screen);

  chat.type("hello");
  chat.send(["Enter"]);
  screen = await chat.waitFor(/claude took over the chat[\s\S]*^> *$/m, "Claude's answer");
  const switches = screen.split("\n").filter((line) => line.includes("going on with"));
  assert.equal(switches.length, 2, screen);
  assert.match(
    switches[0],
    /google:gemini-3-pro-preview failed \(503 .*The model is overloaded.*\); going on with quota:gpt-5-mini \(fallback model; its prompt cache starts cold\)/,
  );
  assert.match(
    switches[1],
    /quota:gpt-5-mini failed \(429 .*exceeded your current quota.*\); going on with claude:claude-sonnet-4-5 \(fallback model/,
  );
  assert.match(screen, /^claude-sonnet-4-5 · context/m, screen);
  assert.equal(gemini.requests.length, 5, "retried 4 times before falling back");
  assert.equal(openai.requests.length, 1, "used-up quota is not retried");
  assert.equal(anthropic.requests.length, 1);

  chat.type("and again");
  chat.send(["Enter"]);
  screen = await chat.waitFor(/claude again[\s\S]*^> *$/m, "the second answer");
  assert.equal(anthropic.requests.length, 2);
  assert.equal(gemini.requests.length, 5, "the second prompt did not start on Gemini again");
  assert.equal(openai.requests.length, 1);
  assert.match(JSON.stringify(anthropic.requests[1].body.messages), /claude took over the chat/);
  assert.equal(screen.split("\n").filter((line) => line.includes("going on with")).length, 2, screen);
  const statusLines = screen.split("\n").filter((line) => line.includes(" · context "));
  assert.deepEqual(
    statusLines.map((line) => line.split(" · ")[0]),
    ["claude-sonnet-4-5", "claude-sonnet-4-5"],
    screen,
  );
});
