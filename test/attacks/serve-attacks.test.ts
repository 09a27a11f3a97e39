// `harness serve` from the attacker's side. Another local user reads the token file or talks to
// the port without the token; a web page the user visits tries DNS rebinding (its own name,
// resolved to 127.0.0.1, in the Host header) or a cross-site request; a client guesses tokens; a
// client reads nothing of a flood; an address off loopback without TLS. Each is refused. The
// victim runs as root and as nobody, under umask 000, with its HOME under /var/tmp.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { cleanEnv, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { asRootOnly, canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { startServe, watchUntil } from "../support/serve.ts";

const serve = fakeServerPerTest();

/** One raw request with the headers an attacker chooses (fetch would not let it set Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: options.method ?? "GET", headers: options.headers }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on("error", reject);
    sent.end(options.body);
  });
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: another local user cannot read the token, and without it gets nothing`, {
    skip: skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-serve-home-");
    handTo(identity, home);
    const harnessHome = join(home, ".harness");
    const fake = await serve([]);
    const served = await startServe(fake, {
      env: cleanEnv({ HOME: home, HARNESS_HOME: harnessHome, HARNESS_API_KEY: "test-key" }),
      wrap: ["sh", "-c", 'umask 000; exec "$@"', "sh", ...runAs(identity)],
      cwd: home,
    });
    const tokenFile = join(harnessHome, "serve.json");
    assert.equal((statSync(tokenFile).mode & 0o777).toString(8), "600");
    assert.equal((statSync(harnessHome).mode & 0o777).toString(8), "700");
    const attacker =
      identity === "root" ? runAs("nobody") : ["setpriv", "--reuid=daemon", "--regid=daemon", "--clear-groups"];
    const read = spawnSync(attacker[0], [...attacker.slice(1), "cat", tokenFile]);
    assert.notEqual(read.status, 0, "the other user read the token file");
    assert.doesNotMatch(String(read.stdout), new RegExp(served.token));
    // The other user talks to the port: no token, a wrong one, the token in the query: all 401.
    const probe = `for (const auth of [undefined, "Bearer wrong", "Basic ${"x".repeat(8)}"]) {
      const r = await fetch(process.argv[1] + "api/sessions", { headers: auth ? { authorization: auth } : {} });
      console.log(r.status, (await r.text()).slice(0, 200));
    }
    const s = await fetch(process.argv[1] + "api/sessions/x/events?token=x");
    console.log(s.status);
    const resume = await fetch(process.argv[1] + "api/sessions", { method: "POST",
      headers: { "content-type": "application/json" }, body: JSON.stringify({ resume: "a" }) });
    console.log(resume.status);`;
    const talk = spawnSync(
      attacker[0],
      [...attacker.slice(1), process.execPath, "--input-type=module", "-e", probe, served.url],
      {
        encoding: "utf8",
      },
    );
    assert.equal(talk.status, 0, talk.stderr);
    const statuses = talk.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[0]);
    assert.deepEqual(statuses, ["401", "401", "401", "401", "401"]);
    assert.doesNotMatch(talk.stdout, /sessions"/);
    // The owner, with the token, is served.
    assert.deepEqual(await served.client.listSessions(), []);
  });
}

test("a rebound Host, a cross-site Origin or fetch, a text/plain body: refused even with the token", {
  skip: asRootOnly,
}, async () => {
  const fake = await serve([]);
  const served = await startServe(fake);
  const port = new URL(served.url).port;
  const auth = { authorization: `Bearer ${served.token}` };
  const list = `${served.url}api/sessions`;
  const attempts: Array<Record<string, string>> = [
    { ...auth, host: "evil.example" },
    { ...auth, host: `evil.example:${port}` },
    { ...auth, host: `127.0.0.1.evil.example:${port}` },
    { ...auth, origin: "http://evil.example" },
    { ...auth, origin: `http://evil.example:${port}` },
    { ...auth, origin: "null" },
    { ...auth, "sec-fetch-site": "cross-site" },
    { ...auth, "sec-fetch-site": "same-site" },
  ];
  for (const headers of attempts) {
    const answer = await raw(list, { headers });
    assert.equal(answer.status, 403, JSON.stringify(headers));
    assert.doesNotMatch(answer.body, /"sessions"/);
  }
  // The page itself is refused under a rebound name too: it is served only to this server's names.
  assert.equal((await raw(served.url, { headers: { host: "evil.example" } })).status, 403);
  // A cross-site "simple" POST (no preflight) cannot be JSON: refused before it does anything.
  const simple = await raw(list, {
    method: "POST",
    headers: { ...auth, "content-type": "text/plain" },
    body: JSON.stringify({ cwd: tempDir() }),
  });
  assert.equal(simple.status, 415);
  // With the token, a client still cannot widen a session: no wider approval mode, no sandbox,
  // network or trust of its own (the body's keys are a closed list).
  for (const widen of [
    { approve: "all" },
    { approve: "edits" },
    { sandbox: "off" },
    { trust: true },
    { allowNetwork: true },
  ]) {
    const answer = await raw(list, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ cwd: tempDir(), ...widen }),
    });
    assert.equal(answer.status, 400, JSON.stringify(widen));
  }
  assert.deepEqual(await served.client.listSessions(), []);
  // The server's own names and its own page's Origin pass.
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
    const answer = await raw(list, {
      headers: { ...auth, host, origin: `http://${host}`, "sec-fetch-site": "same-origin" },
    });
    assert.equal(answer.status, 200, host);
  }
});

test("guessing tokens: after 20 wrong ones the address is refused, the right token too, until the minute ends", {
  skip: asRootOnly,
}, async () => {
  const fake = await serve([]);
  const served = await startServe(fake);
  const list = `${served.url}api/sessions`;
  for (let guess = 0; guess < 20; guess++) {
    const answer = await raw(list, { headers: { authorization: `Bearer guess${guess}` } });
    assert.equal(answer.status, 401);
  }
  const locked = await raw(list, { headers: { authorization: `Bearer ${served.token}` } });
  assert.equal(locked.status, 429);
  const stream = await raw(`${served.url}api/sessions/any/events`, {
    headers: { authorization: `Bearer ${served.token}` },
  });
  assert.equal(stream.status, 429);
});

test("off loopback: refused without --allow-remote; with it, HTTPS only, its self-signed fingerprint printed", {
  skip: asRootOnly,
}, async () => {
  const remote = await runCli(["serve", "--listen", "0.0.0.0", "--port", "0"]);
  assert.equal(remote.code, 2);
  assert.match(remote.stderr, /--allow-remote/);
  const fake = await serve([]);
  const served = await startServe(fake, { args: ["--listen", "0.0.0.0", "--allow-remote"] });
  const port = Number(new URL(served.url).port);
  assert.equal(new URL(served.url).protocol, "https:");
  const printed = /SHA-256 fingerprint (\S+)/.exec(served.stdout())?.[1];
  assert.ok(printed, served.stdout());
  // Plain HTTP gets no answer a client could read: the token would cross the network in clear.
  await assert.rejects(raw(`http://127.0.0.1:${port}/api/sessions`, { headers: { authorization: "Bearer x" } }));
  // The certificate a client meets is the one whose fingerprint was printed (what a person checks).
  const met = await new Promise<string>((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
  assert.equal(met, printed);
  // Trusting only the written certificate: this machine's names are served, a rebinding name refused.
  const ca = readFileSync(join(served.env.HARNESS_HOME as string, "serve-cert.pem"));
  const ask = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const sent = httpsRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/api/sessions",
          ca,
          servername: "localhost",
          headers: { host, authorization: `Bearer ${served.token}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      sent.on("error", reject);
      sent.end();
    });
  assert.equal(await ask(`localhost:${port}`), 200);
  assert.equal(await ask(`${hostname()}:${port}`), 200);
  assert.equal(await ask(`attacker.example:${port}`), 403);
});

test("a client that reads nothing of a flood holds no one up: another watcher gets the whole run", {
  skip: asRootOnly,
}, async () => {
  // 6 MB of text in 2 KB pieces: about 3,000 text_delta events, more than the sockets' buffers hold.
  const fake = await serve([{ flood: { piece: "x".repeat(2048), bytes: 6_000_000 } }]);
  const served = await startServe(fake);
  const session = await served.client.createSession({ cwd: tempDir() });
  const { port } = new URL(served.url);
  // The stalled client: asks for the stream and never reads a byte.
  const stalled = connect(Number(port), "127.0.0.1");
  stalled.pause();
  stalled.write(
    `GET /api/sessions/${session.id}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${served.token}\r\n\r\n`,
  );
  await served.client.prompt(session.id, "flood");
  const seen = await watchUntil(served.client, session.id, (event) => event.type === "done");
  const done = seen.at(-1)!.event as { reason: string; answer: string };
  assert.equal(done.reason, "stop");
  assert.ok(done.answer.length > 5_000_000, `answer of ${done.answer.length} characters`);
  // The server still answers (it did not stall on the client that reads nothing).
  assert.equal((await served.client.session(session.id)).running, false);
  stalled.destroy();
  // What the server holds for it is bounded (its log's bound, and a batch in its socket's buffer):
  // test/unit/serve-event-stream.test.ts measures that in-process.
});
