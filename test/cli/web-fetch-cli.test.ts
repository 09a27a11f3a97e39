// web_fetch through the built CLI against the fake LLM server, fetching from a page server on
// 127.0.0.1 that the test starts and stops. Loopback is private, so only runs that allow it
// explicitly (HARNESS_WEB_FETCH_ALLOW=127.0.0.1) reach it: the refusals are asserted by the page
// server never seeing the request.
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();
let pages: Server | undefined;
afterEach(async () => {
  pages?.closeAllConnections();
  await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
  pages = undefined;
});

/** Most bytes the endless page sends before giving up on a client that never stops reading. */
const ENDLESS_PAGE_LIMIT = 64 * 1024 * 1024;

/**
 * A page server on 127.0.0.1: `/page` is HTML, `/hop/N` redirects to `/hop/N+1` forever, `/endless`
 * is text that never ends (bytes sent are counted). Records each request's path and headers.
 */
async function startPages(): Promise<{
  port: number;
  seen: { url: string; headers: Record<string, unknown> }[];
  endlessBytesSent: () => number;
}> {
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  let endlessBytes = 0;
  pages = createServer((request, response) => {
    seen.push({ url: request.url ?? "", headers: request.headers });
    if (request.url === "/endless") {
      response.writeHead(200, { "content-type": "text/plain" });
      const line = Buffer.from(`${"x".repeat(1023)}\n`);
      const more = () => {
        while (!response.destroyed && endlessBytes < ENDLESS_PAGE_LIMIT) {
          endlessBytes += line.length;
          if (!response.write(line)) return void response.once("drain", more);
        }
        response.end();
      };
      return more();
    }
    if (request.url === "/silent") return; // headers never come
    if (request.url === "/trickle") {
      // Never silent for long, never done: only a cap on the whole fetch ends it.
      response.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => response.write("."), 100);
      response.on("close", () => clearInterval(timer));
      return;
    }
    const hop = /^\/hop\/(\d+)$/.exec(request.url ?? "");
    if (hop) return response.writeHead(302, { location: `/hop/${Number(hop[1]) + 1}` }).end();
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        "<html><head><title>t</title><script>var leak = 1;</script></head><body><h1>Release notes</h1><p>Version <strong>2.0</strong> is out.</p><ul><li>faster</li></ul></body></html>",
      );
  });
  // On every address (IPv6 and IPv4-mapped too), so a refusal is the harness's doing, not a missing listener.
  await new Promise<void>((resolve) => pages!.listen(0, "::", resolve));
  return { port: (pages.address() as AddressInfo).port, seen, endlessBytesSent: () => endlessBytes };
}

function fetchScript(url: string) {
  return [{ reply: { toolCalls: [{ id: "f1", name: "web_fetch", arguments: { url } }] } }, { reply: { text: "done" } }];
}

/** What the model got back from the web_fetch call. */
function toolResult(fake: FakeLLM, request = 1): string {
  const messages = fake.requests[request].body.messages as { role: string; content: string }[];
  return messages.find((message) => message.role === "tool")!.content;
}

test("an HTML page on an allowed 127.0.0.1 comes back as Markdown, with no cookies or credentials sent, and no undo snapshot taken", async () => {
  const { port, seen } = await startPages();
  const fake = await serve(fetchScript(`http://127.0.0.1:${port}/page`));
  const env = cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1" });
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read the notes"], { env });
  assert.equal(result.code, 0, result.stderr);
  // A fetch changes no files, so it records no snapshot of the workspace (slow on a large one); the
  // first turn's warming (issue 52) may have begun the shadow repository, and is ended with the turn.
  const snapshots = join(env.HARNESS_HOME!, "snapshots");
  const recorded = existsSync(snapshots)
    ? readdirSync(snapshots, { recursive: true }).filter((entry) => String(entry).includes(join("refs", "harness", "")))
    : [];
  assert.deepEqual(recorded, []);
  const content = toolResult(fake);
  assert.match(content, /^# Release notes$/m);
  assert.match(content, /Version \*\*2\.0\*\* is out\./);
  assert.match(content, /^-\s+faster$/m);
  assert.doesNotMatch(content, /leak|<h1>/, "scripts dropped, tags converted");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].headers.cookie, undefined);
  assert.equal(seen[0].headers.authorization, undefined);
});

test("a name that resolves to loopback is refused when loopback is not allowed: no request reaches the server", async () => {
  const { port, seen } = await startPages();
  const fake = await serve(fetchScript(`http://localhost:${port}/page`));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake), /Not fetched: .*(127\.0\.0\.1|::1) is a private or loopback address/);
  assert.equal(seen.length, 0);
});

test("a private address literal (the cloud metadata address) is refused before any connection", async () => {
  const fake = await serve(fetchScript("http://169.254.169.254/latest/meta-data/"));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], {
    env: cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake), /Not fetched: 169\.254\.169\.254 is a private or loopback address/);
});

test("a redirect loop stops after the limit with the reason to the model", async () => {
  const { port, seen } = await startPages();
  const fake = await serve(fetchScript(`http://127.0.0.1:${port}/hop/0`));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], {
    env: cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake), /Not fetched: more than 5 redirects/);
  assert.equal(seen.length, 6, "the first request and five redirects followed, no more");
});

test("headless without --yes or a web_fetch rule, the fetch is refused with the reason; web_fetch(127.0.0.1) allows it", async () => {
  const { port, seen } = await startPages();
  const url = `http://127.0.0.1:${port}/page`;
  const env = cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1" });
  const fake = await serve([...fetchScript(url), ...fetchScript(url)]);
  const result = await runCli([...fakeFlags(fake), "-p", "read it"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake), /no one was there to approve it/);
  assert.equal(seen.length, 0);

  writeFileSync(
    join(env.HARNESS_HOME!, "settings.json"),
    JSON.stringify({ permissions: { allow: ["web_fetch(127.0.0.1)"] } }),
  );
  const second = await runCli([...fakeFlags(fake), "-p", "read it"], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(toolResult(fake, 3), /^# Release notes$/m);
  assert.equal(seen.length, 1);
});

test("a page that never ends is read up to the size cap only: the model is told the rest was not downloaded", async () => {
  const { port, endlessBytesSent } = await startPages();
  const fake = await serve(fetchScript(`http://127.0.0.1:${port}/endless`));
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], {
    env: cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResult(fake), /\[the page was longer than 2097152 bytes; the rest was not downloaded\]$/);
  // The connection was dropped at the cap (plus what was in flight), far below what the server would send.
  assert.ok(endlessBytesSent() < 16 * 1024 * 1024, `${endlessBytesSent()} bytes sent`);
});

test("IPv6 loopback, IPv4-mapped and unique-local literals are refused before any connection unless allowed", async () => {
  const { port, seen } = await startPages();
  // fd00::1 is not on this machine: it is refused by the literal check, before a socket is opened.
  const hosts = ["[::1]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "[::127.0.0.1]", "[fd00::1]", "[::]"];
  const fake = await serve([
    {
      reply: {
        toolCalls: hosts.map((host, n) => ({
          id: `f${n}`,
          name: "web_fetch",
          arguments: { url: `http://${host}:${port}/page` },
        })),
      },
    },
    { reply: { text: "done" } },
    ...fetchScript(`http://[::1]:${port}/page`),
  ]);
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  const results = (fake.requests[1].body.messages as { role: string; content: string }[])
    .filter((message) => message.role === "tool")
    .map((message) => message.content);
  assert.equal(results.length, hosts.length);
  for (const content of results) assert.match(content, /^Not fetched: [0-9a-f:.]+ is a private or loopback address/);
  assert.deepEqual(seen, [], "no request reached the page server");

  // Allowed by the user, the same IPv6 loopback is fetched: the refusal above was the policy.
  const allowed = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], {
    env: cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "::1" }),
  });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(toolResult(fake, 3), /^# Release notes$/m);
  assert.equal(seen.length, 1);
});

for (const page of ["silent", "trickle"]) {
  test(`a ${page} server is cut at the fetch's time cap (HARNESS_WEB_FETCH_TIMEOUT) and the model is told`, async () => {
    const { port, seen } = await startPages();
    const fake = await serve(fetchScript(`http://127.0.0.1:${port}/${page}`));
    const result = await runCli([...fakeFlags(fake), "-y", "-p", "read it"], {
      env: cleanEnv({ HARNESS_WEB_FETCH_ALLOW: "127.0.0.1", HARNESS_WEB_FETCH_TIMEOUT: "1" }),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(seen.length, 1, "the request was made");
    assert.equal(toolResult(fake), "Not fetched: no complete answer within 1 s.");
  });
}
