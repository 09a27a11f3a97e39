// Sign-ins through the built CLI against fake OAuth and model servers on 127.0.0.1
// (test/support/fake-sign-in/): ChatGPT's browser sign-in driven by headless Chromium, its
// device code, refresh with rotation (and two processes refreshing at once), a revoked sign-in;
// Copilot's device flow, token exchange and chat; `harness auth`, `harness logout`, `harness models`.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { browserLogin } from "../support/fake-sign-in/login-run.ts";
import { CODEX_CLIENT_ID } from "../support/fake-sign-in/openai-auth.ts";
import { type FakeSignIn, startFakeSignIn } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, stateFiles } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
let fakes: FakeSignIn[] = [];
afterEach(async () => {
  for (const fake of fakes) await fake.close();
  fakes = [];
});

async function world(steps: (signIn: FakeSignIn) => Parameters<typeof serve>[0]) {
  const signIn = await startFakeSignIn();
  fakes.push(signIn);
  const llm: FakeLLM = await serve(steps(signIn));
  const env = cleanEnv(signIn.env(llm.url));
  return { signIn, llm, env, home: env.HARNESS_HOME as string };
}

const tokensOf = (home: string) => JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")).signIns;

test("ChatGPT: browser sign-in in Chromium, a one-shot on the plan, auth, models, logout", {
  skip: needs("chromium"),
}, async () => {
  const { signIn, llm, env, home } = await world((fake) => [
    (request) => fake.chatgptRefusal(request) ?? { reply: { text: "hello from the plan" } },
  ]);
  const login = browserLogin(env);
  const page = await withPageInChromium(await login.url, async ({ page }) => page.textContent("body"));
  const result = await login.done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(page ?? "", /Signed in/);
  assert.match(result.stderr, /signed in: chatgpt: user@example\.com, plus plan/);
  const stored = tokensOf(home).chatgpt;
  assert.equal(stored.accountId, "acct-fake-1234");
  assert.equal(statSync(join(home, "credentials.json")).mode & 0o777, 0o600);
  assert.equal(statSync(home).mode & 0o777, 0o700);

  const run = await runCli(["-p", "hi", "--provider", "chatgpt"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /hello from the plan/);
  const sent = llm.requests[0];
  assert.equal(sent.path, "/backend-api/codex/responses");
  assert.equal(sent.headers["chatgpt-account-id"], "acct-fake-1234");
  assert.equal(sent.headers["openai-beta"], "responses=experimental");
  assert.equal(sent.headers.originator, "harness");
  assert.equal(sent.body.model, "gpt-5.1-codex");

  const auth = await runCli(["auth"], { env });
  assert.match(auth.stdout, /^chatgpt: user@example\.com, plus plan \(ChatGPT, chatgpt\.com\), token until \d{4}-/m);
  const models = await runCli(["models", "--provider", "chatgpt"], { env });
  assert.equal(models.code, 0, models.stderr);
  assert.deepEqual(models.stdout.trim().split("\n").slice(0, 2), ["gpt-5.1-codex", "gpt-5.1-codex-mini"]);
  // No token anywhere but the store: not in output, sessions, logs.
  for (const secret of [stored.accessToken, stored.refreshToken, stored.idToken]) {
    for (const text of [result.stdout, result.stderr, run.stdout, run.stderr, auth.stdout])
      assert.ok(!text.includes(secret));
    for (const file of stateFiles(home).filter((file) => !file.path.endsWith("credentials.json")))
      assert.ok(!file.text.includes(secret), `${file.path} holds a token`);
  }
  const out = await runCli(["logout"], { env });
  assert.equal(out.stdout, "signed out of chatgpt\n");
  // Revoked at the service too, as codex logout does: the refresh token no longer works there.
  assert.ok(signIn.openai.log.includes("revoke refresh_token"), out.stderr);
  const reuse = await fetch(`${env.HARNESS_TEST_CHATGPT_ISSUER}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_id: CODEX_CLIENT_ID,
      grant_type: "refresh_token",
      refresh_token: stored.refreshToken,
    }),
  });
  assert.equal(reuse.status, 401);
  assert.match(await reuse.text(), /refresh_token_invalidated/);
  const after = await runCli(["-p", "hi", "--provider", "chatgpt"], { env });
  assert.equal(after.code, 1);
  assert.match(after.stderr, /not signed in to chatgpt: run harness login chatgpt/);
  // The sign-in's exchange and the test's own try of the revoked token: harness refreshed nothing.
  assert.equal(signIn.requests.filter((line) => line === "POST /oauth/token").length, 2);
});

test("ChatGPT: device code, refresh with rotation before expiry, two processes at once, then revoked", async () => {
  const { signIn, env, home } = await world((fake) =>
    Array.from({ length: 4 }, () => (request) => fake.chatgptRefusal(request) ?? { reply: { text: "ok" } }),
  );
  // Each access token lives a minute: under the five-minute margin, so each run refreshes first.
  signIn.openai.accessTtl = 60;
  signIn.openai.refreshDelayMs = 300;
  // A code the server has let expire (the fake's, set short here): one line with the fix, nothing stored.
  signIn.openai.deviceExpiryMs = 0;
  const late = await runCli(["login", "chatgpt", "--device", "--timeout", "1"], { env });
  assert.equal(late.code, 1);
  assert.match(
    late.stderr,
    /\nharness login: ChatGPT device sign-in: the code was not entered in time or has expired; nothing was stored; run harness login chatgpt --device again\n$/,
  );
  assert.ok(signIn.openai.log.includes("device code expired"));
  assert.ok(!existsSync(join(home, "credentials.json")));
  signIn.openai.deviceExpiryMs = 15 * 60 * 1000;
  const login = await runCli(["login", "chatgpt", "--device"], { env });
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stderr, /\/codex\/device in a browser, sign in, and enter the code [0-9A-F]{4}-[0-9A-F]{4}/);
  const first = tokensOf(home).chatgpt.refreshToken;
  const one = await runCli(["-p", "hi", "--provider", "chatgpt"], { env });
  assert.equal(one.code, 0, one.stderr);
  assert.notEqual(tokensOf(home).chatgpt.refreshToken, first, "the rotated refresh token is stored");
  const both = await Promise.all([1, 2].map(() => runCli(["-p", "hi", "--provider", "chatgpt"], { env })));
  for (const run of both) assert.equal(run.code, 0, run.stderr);
  assert.equal(signIn.openai.refreshes, 3);
  assert.ok(!signIn.openai.log.includes("reused"), "no refresh token was used twice");
  signIn.openai.revokeAll();
  const revoked = await runCli(["-p", "hi", "--provider", "chatgpt"], { env });
  assert.equal(revoked.code, 1);
  assert.match(revoked.stderr, /your ChatGPT sign-in cannot be renewed: it was revoked; run harness login chatgpt/);
  // Logout while OpenAI's revocation fails: one line, and the local tokens are removed anyway.
  signIn.openai.revokeStatus = 503;
  const out = await runCli(["logout", "chatgpt"], { env });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "signed out of chatgpt\n");
  assert.equal(
    out.stderr,
    "harness logout: ChatGPT revocation failed (HTTP 503, temporarily_unavailable); the tokens were removed here, revoke harness at chatgpt.com's settings if needed\n",
  );
  assert.equal(tokensOf(home).chatgpt, undefined);
});

test("Copilot: device flow with pending and slow_down, exchange, chat with its headers, models, revoked", async () => {
  const { signIn, llm, env, home } = await world((fake) => [
    (request) => fake.copilotRefusal(request) ?? { reply: { text: "hello from copilot" } },
    (request) => fake.copilotRefusal(request) ?? { reply: { text: "again" } },
  ]);
  llm.models = ["gpt-4.1", "claude-sonnet-4.5"];
  signIn.github.pollAnswers = ["authorization_pending", "slow_down", "authorization_pending"];
  signIn.github.copilotTtl = 60;
  const login = await runCli(["login", "copilot"], { env });
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stderr, /Open https:\/\/github\.com\/login\/device in a browser and enter the code WDJB-MJHT/);
  assert.match(login.stderr, /signed in: copilot: octocat, copilot_individual \(GitHub Copilot/);
  const run = await runCli(["-p", "hi", "--provider", "copilot"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /hello from copilot/);
  const sent = llm.requests[0];
  assert.equal(sent.path, "/chat/completions");
  assert.equal(sent.headers["copilot-integration-id"], "vscode-chat");
  assert.equal(sent.headers["openai-intent"], "conversation-edits");
  assert.equal(sent.body.model, "gpt-4.1");
  // The Copilot token lived a minute (under the margin): the run made a new one first.
  assert.equal(signIn.github.exchanges, 2);
  const models = await runCli(["models", "--provider", "copilot"], { env });
  assert.equal(models.stdout, "claude-sonnet-4.5\ngpt-4.1\n", models.stderr);
  const auth = await runCli(["auth"], { env });
  assert.match(
    auth.stdout,
    /^copilot: octocat, copilot_individual \(GitHub Copilot, api\.githubcopilot\.com\), Copilot token until/m,
  );
  const github = tokensOf(home).copilot.githubToken;
  assert.ok(![login.stderr, run.stderr, auth.stdout].some((text) => text.includes(github)));
  signIn.github.revokeAll();
  const revoked = await runCli(["-p", "hi", "--provider", "copilot"], { env });
  assert.equal(revoked.code, 1);
  assert.match(revoked.stderr, /your GitHub sign-in for Copilot was revoked or has expired; run harness login copilot/);
  // GitHub's revocation needs the app's client secret, which a device-flow client has not: a hint.
  const out = await runCli(["logout", "copilot"], { env });
  assert.equal(out.stdout, "signed out of copilot\n");
  assert.match(out.stderr, /revoke harness at https:\/\/github\.com\/settings\/applications/);
  assert.equal(tokensOf(home).copilot, undefined);
});

test("sign-in providers refuse a base URL from flags, config.json or a non-loopback test hook", async () => {
  const { env } = await world(() => []);
  const flag = await runCli(["-p", "hi", "--provider", "chatgpt", "--base-url", "https://evil.example/v1"], { env });
  assert.equal(flag.code, 2);
  assert.match(
    flag.stderr,
    /--base-url \(or HARNESS_BASE_URL\) does not apply to chatgpt: its sign-in's tokens go only to chatgpt\.com/,
  );
  const hook = await runCli(["-p", "hi", "--provider", "copilot"], {
    env: { ...env, HARNESS_TEST_COPILOT_API: "https://evil.example" },
  });
  assert.equal(hook.code, 2);
  assert.match(hook.stderr, /HARNESS_TEST_COPILOT_API is a test hook and takes only a loopback URL/);
  const claude = await runCli(["login", "claude"], { env });
  assert.equal(claude.code, 2);
  assert.match(claude.stderr, /Anthropic does not allow claude\.ai plans in other tools/);
});
