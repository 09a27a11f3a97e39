// Attacks on the sign-ins (docs/sign-in.md), from the attacker's side, with the built CLI as root
// and as nobody against fake OAuth and model servers on 127.0.0.1, HOME under /var/tmp:
// - forged callbacks while `harness login chatgpt` waits: a wrong state, a script of another
//   origin, another Host (DNS rebinding): refused, and the real sign-in (Chromium) still completes;
// - code injection: an attacker who learnt the state delivers a code of their own login: PKCE
//   makes the exchange fail, nothing is stored;
// - the token file: 0600 in a 0700 folder, owned by the user, unreadable by another user; a file
//   others may read is refused;
// - tokens never reach a sandboxed command or the model (cat, env, grep of $HARNESS_HOME, read_file);
// - a hostile token endpoint (a huge body, a huge token, not JSON, the wrong shape, control
//   characters in a claim): one line, nothing stored or printed raw.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import { browserLogin, callbackOf } from "../support/fake-sign-in/login-run.ts";
import type { HostileMode } from "../support/fake-sign-in/openai-auth.ts";
import { type FakeSignIn, startFakeSignIn } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, type Identity, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
let fakes: FakeSignIn[] = [];
afterEach(async () => {
  for (const fake of fakes) await fake.close();
  fakes = [];
});

async function setup(identity: Identity, modelUrl = "http://127.0.0.1:9") {
  const signIn = await startFakeSignIn();
  fakes.push(signIn);
  const home = canaryHomeDir("harness-sign-in-");
  mkdirSync(join(home, "project"));
  handTo(identity, home);
  const harnessHome = join(home, ".harness");
  const env = cleanEnv({ ...signIn.env(modelUrl), HOME: home, HARNESS_HOME: harnessHome });
  return { signIn, home, harnessHome, env, cwd: join(home, "project") };
}

/** One GET to the callback server with the headers given; its status and body. */
function callback(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, headers: { host: `localhost:${port}`, ...headers } },
      (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: forged callbacks are refused and the real sign-in completes; an injected code stores nothing`, {
    skip: needs("chromium", "setpriv") || skipAs(identity),
  }, async () => {
    const { signIn, harnessHome, env } = await setup(identity);
    const login = browserLogin(env, [], runAs(identity));
    const url = await login.url;
    const { port, state } = callbackOf(url);
    const forged = await callback(port, `/auth/callback?code=ac_forged&state=not-${state}`);
    assert.deepEqual(forged, { status: 400, body: "State mismatch" });
    const scripted = await callback(port, `/auth/callback?code=ac_forged&state=${state}`, {
      origin: "http://evil.example",
    });
    assert.equal(scripted.status, 403);
    const rebound = await callback(port, `/auth/callback?code=ac_forged&state=${state}`, {
      host: `evil.example:${port}`,
    });
    assert.equal(rebound.status, 421);
    await withPageInChromium(url, async ({ page }) =>
      assert.match((await page.textContent("body")) ?? "", /Signed in/),
    );
    const done = await login.done;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /refused a callback with the wrong state/);
    assert.match(done.stderr, /refused a callback sent by a script of http:\/\/evil\.example/);
    // The file: the user's alone.
    const file = join(harnessHome, "credentials.json");
    const uid = Number(execFileSync("id", ["-u", identity === "root" ? "root" : "nobody"], { encoding: "utf8" }));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(harnessHome).mode & 0o777, 0o700);
    assert.equal(statSync(file).uid, uid);
    if (identity === "root")
      assert.throws(() => execFileSync("setpriv", [...runAs("nobody").slice(1), "cat", file], { stdio: "pipe" }));
    // A code of the attacker's own login, delivered with the state they learnt: the verifier does not match.
    const second = browserLogin(env, [], runAs(identity));
    const leaked = callbackOf(await second.url);
    const theirs = new URL(`${signIn.url}/oauth/authorize`);
    for (const [key, value] of Object.entries({
      response_type: "code",
      client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
      redirect_uri: leaked.redirectUri,
      code_challenge: "attackers-own-challenge-attackers-own-challenge",
      code_challenge_method: "S256",
      state: leaked.state,
    }))
      theirs.searchParams.set(key, value);
    const location = (await fetch(theirs, { redirect: "manual" })).headers.get("location") ?? "";
    const injected = new URL(location);
    assert.equal((await callback(leaked.port, `${injected.pathname}${injected.search}`)).status, 200);
    const refused = await second.done;
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the token endpoint refused the code \(HTTP 400 invalid_grant\)/);
    const stored = JSON.parse(readFileSync(file, "utf8")).signIns.chatgpt;
    assert.ok(
      signIn.openai.accessTokens.has(stored.accessToken),
      "the first sign-in's tokens are still the stored ones",
    );
    // Others may read it: refused, with the fix.
    chmodSync(file, 0o644);
    const auth = await runCli(["auth"], { env, wrap: runAs(identity) });
    assert.equal(auth.code, 1);
    assert.match(auth.stderr, /may be read by other users \(mode 644\): run chmod 600/);
  });

  test(`as ${identity}: the tokens reach no sandboxed command and never the model`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const holder: { fake?: FakeSignIn } = {};
    const llm = await serve([
      (request) =>
        holder.fake?.chatgptRefusal(request) ?? {
          reply: {
            toolCalls: [
              {
                id: "cat",
                name: "bash",
                arguments: { command: 'cat "$HARNESS_HOME/credentials.json" ~/.harness/credentials.json' },
              },
              { id: "env", name: "bash", arguments: { command: "env; grep -r refresh ~ 2>&1; echo END" } },
              { id: "read", name: "read_file", arguments: { path: "~/.harness/credentials.json" } },
            ],
          },
        },
      (request) => holder.fake?.chatgptRefusal(request) ?? { reply: { text: "done" } },
    ]);
    const { signIn, harnessHome, env, cwd } = await setup(identity, llm.url);
    holder.fake = signIn;
    const login = await runCli(["login", "chatgpt", "--device"], { env, wrap: runAs(identity) });
    assert.equal(login.code, 0, login.stderr);
    const run = await runCli(["-y", "--sandbox", "on", "--provider", "chatgpt", "-p", "go"], {
      env,
      cwd,
      wrap: runAs(identity),
    });
    assert.equal(run.code, 0, run.stderr);
    // The commands ran (their output went back to the model in the next request).
    assert.match(JSON.stringify(llm.requests[1].body.input), /END/);
    const stored = JSON.parse(readFileSync(join(harnessHome, "credentials.json"), "utf8")).signIns.chatgpt;
    const toModel = JSON.stringify(llm.requests.map((sent) => sent.body));
    for (const secret of [stored.accessToken, stored.refreshToken, stored.idToken, stored.accessToken.slice(0, 40)])
      assert.ok(!toModel.includes(secret) && !run.stdout.includes(secret) && !run.stderr.includes(secret));
  });

  test(`as ${identity}: a hostile token endpoint ends the sign-in in one line and stores nothing`, {
    skip: needs("setpriv") || skipAs(identity),
  }, async () => {
    const modes: HostileMode[] = ["huge-body", "huge-token", "not-json", "wrong-shape", "control-chars"];
    const runs = await Promise.all(
      modes.map(async (mode) => {
        const { signIn, harnessHome, env } = await setup(identity);
        signIn.openai.hostile = mode;
        const login = await runCli(["login", "chatgpt", "--device"], { env, wrap: runAs(identity) });
        return { mode, login, stored: existsSync(join(harnessHome, "credentials.json")) };
      }),
    );
    for (const { mode, login, stored } of runs) {
      if (mode === "control-chars") {
        // The claim with an escape sequence is dropped: the account id names the sign-in instead.
        assert.equal(login.code, 0, login.stderr);
        assert.match(login.stderr, /signed in: chatgpt: account acct-fake-1234, plus plan/);
        assert.ok(!login.stderr.includes("\u001b"));
        continue;
      }
      assert.equal(login.code, 1, `${mode}: ${login.stderr}`);
      assert.equal(stored, false, mode);
      const lines = login.stderr
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("harness login:"));
      assert.equal(lines.length, 1, `${mode}: ${login.stderr}`);
      assert.ok(lines[0].length < 200, `${mode}: ${lines[0]}`);
    }
  });
}
