// Sign-ins that expire (issue 43), through the built CLI against the fakes of
// test/support/fake-sign-in/: a device code the user never entered in time (GitHub's
// `expired_token`), a token that runs out between two requests of one run (renewed before the
// next), and a token the service stops taking mid-run (401: renewed once and sent again, never
// more than once).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM, RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { type FakeSignIn, fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

async function world(steps: (signIn: FakeSignIn) => ScriptStep[]) {
  const signIn = await startSignIn();
  const llm: FakeLLM = await serve(steps(signIn));
  const env = cleanEnv(signIn.env(llm.url));
  return { signIn, llm, env, home: env.HARNESS_HOME as string };
}

const bearerOf = (request: RecordedRequest) => String(request.headers.authorization);
const toolCall = { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "true" } }] } };

test("Copilot: a device code never entered in time ends in one line, storing nothing", async () => {
  const { signIn, env, home } = await world(() => []);
  signIn.github.interval = 1;
  signIn.github.deviceTtl = 1;
  signIn.github.pollAnswers = Array.from({ length: 50 }, () => "authorization_pending");
  const login = await runCli(["login", "copilot"], { env });
  assert.equal(login.code, 1);
  assert.match(
    login.stderr,
    /GitHub sign-in: the code expired before it was entered; run harness login copilot again\n$/,
  );
  assert.ok(signIn.requests.includes("POST /login/oauth/access_token"));
  const stored = existsSync(join(home, "credentials.json"))
    ? JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")).signIns
    : {};
  assert.equal(stored.copilot, undefined);
});

test("Copilot: a token running out mid-run is renewed before the next request; a 401 renews once", async () => {
  const { signIn, llm, env } = await world((fake) => [
    (request) => fake.copilotRefusal(request) ?? toolCall,
    (request) => fake.copilotRefusal(request) ?? { reply: { text: "first run done" } },
    (request) => fake.copilotRefusal(request) ?? toolCall,
    // The service stops taking the token (expired early): 401, then the same request with a new one.
    (request) => {
      fake.github.copilotTokens.clear();
      return fake.copilotRefusal(request) ?? { reply: { text: "unreachable" } };
    },
    (request) => fake.copilotRefusal(request) ?? { reply: { text: "second run done" } },
  ]);
  // Each Copilot token lives a minute, under the two-minute margin: each request gets a new one.
  signIn.github.copilotTtl = 60;
  const login = await runCli(["login", "copilot"], { env });
  assert.equal(login.code, 0, login.stderr);
  const before = signIn.github.exchanges;
  const first = await runCli(["-y", "--provider", "copilot", "-p", "go"], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /first run done/);
  assert.equal(signIn.github.exchanges - before, 2);
  assert.notEqual(bearerOf(llm.requests[0]), bearerOf(llm.requests[1]));

  signIn.github.copilotTtl = 1800;
  const second = await runCli(["-y", "--provider", "copilot", "-p", "go"], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /second run done/);
  assert.equal(llm.requests.length, 5);
  assert.notEqual(bearerOf(llm.requests[3]), bearerOf(llm.requests[4]), "sent again with a new token");
  assert.equal(bearerOf(llm.requests[2]), bearerOf(llm.requests[3]), "no renewal before it was needed");
});

test("ChatGPT: a 401 mid-run is refreshed once and retried; a second 401 ends the run, no loop", async () => {
  const expireThenAnswer = (fake: FakeSignIn) => (request: RecordedRequest) => {
    fake.openai.accessTokens.clear();
    return fake.chatgptRefusal(request) ?? { reply: { text: "unreachable" } };
  };
  const { signIn, llm, env } = await world((fake) => [
    (request) => fake.chatgptRefusal(request) ?? toolCall,
    expireThenAnswer(fake),
    (request) => fake.chatgptRefusal(request) ?? { reply: { text: "after the refresh" } },
    expireThenAnswer(fake),
    expireThenAnswer(fake),
    (request) => fake.chatgptRefusal(request) ?? { reply: { text: "never asked" } },
  ]);
  const login = await runCli(["login", "chatgpt", "--device"], { env });
  assert.equal(login.code, 0, login.stderr);
  const run = await runCli(["-y", "--provider", "chatgpt", "-p", "go"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /after the refresh/);
  assert.equal(signIn.openai.refreshes, 1);
  assert.equal(llm.requests.length, 3);
  assert.notEqual(bearerOf(llm.requests[1]), bearerOf(llm.requests[2]));

  const refused = await runCli(["--provider", "chatgpt", "-p", "again"], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /401/);
  assert.equal(signIn.openai.refreshes, 2, "one refresh for the 401, not one per retry");
  assert.equal(llm.requests.length, 5, "the request was sent twice, not more");
  assert.ok(!signIn.openai.log.includes("reused"));
});
