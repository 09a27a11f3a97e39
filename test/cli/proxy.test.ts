// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (src/shared/proxy.ts) through the built CLI: every request
// harness makes goes through the proxy a user set, the TLS inside a tunnel is checked against
// NODE_EXTRA_CA_CERTS, NO_PROXY reaches the server directly, and web_fetch's address checks still
// judge the page's address, not the proxy's. The proxy is test/support/proxy-server.ts on 127.0.0.1.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { downloadFile } from "../../src/providers/local/local-download.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { startProxy, startTlsFront } from "../support/proxy-server.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();
/** The model's fixed context window: no window probes, so a model call is the only request. */
const NO_PROBES = ["--context-window", "100000"];

test("a model call over http goes through HTTP_PROXY in absolute form, with the proxy's credentials", async () => {
  const fake = await serve([{ reply: { text: "via the proxy" } }]);
  const proxy = await startProxy();
  const withUser = proxy.url.replace("http://", "http://alice:s%40cret@");
  const result = await runCli([...fakeFlags(fake), ...NO_PROBES, "-p", "hi"], {
    env: cleanEnv({ HTTP_PROXY: withUser }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "via the proxy\n");
  assert.deepEqual(proxy.seen, [`POST ${fake.baseUrl}/chat/completions`]);
  assert.deepEqual(proxy.authorizations, [`Basic ${Buffer.from("alice:s@cret").toString("base64")}`]);
  assert.equal(fake.requests[0].headers["proxy-authorization"], undefined, "the proxy's credentials stop at the proxy");
});

test("a model call over https goes through https_proxy as a CONNECT tunnel; TLS inside is checked against NODE_EXTRA_CA_CERTS", {
  skip: needs("openssl"),
}, async () => {
  const fake = await serve([{ reply: { text: "tunneled" } }, { reply: { text: "never" } }]);
  const front = await startTlsFront(Number(new URL(fake.url).port));
  const proxy = await startProxy();
  const flags = ["--provider", "openai", "--base-url", `${front.url}/v1`, "--model", "fake-model", ...NO_PROBES];
  const result = await runCli([...flags, "-p", "hi"], {
    env: cleanEnv({ https_proxy: proxy.url, NODE_EXTRA_CA_CERTS: front.caFile }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "tunneled\n");
  assert.deepEqual(proxy.seen, [`CONNECT ${new URL(front.url).host}`]);
  // Without the certificate the tunnel opens, but the server inside is not trusted.
  const untrusted = await runCli([...flags, "-p", "hi"], { env: cleanEnv({ HTTPS_PROXY: proxy.url }) });
  assert.equal(untrusted.code, 1);
  assert.match(untrusted.stderr, /self-signed certificate/);
  assert.equal(fake.requests.length, 1);
});

test("NO_PROXY reaches the server directly: by host, by host and port, by a range; '*' for every host", async () => {
  const fake = await serve([1, 2, 3, 4, 5].map((n) => ({ reply: { text: `reply ${n}` } })));
  const proxy = await startProxy();
  const { port } = new URL(fake.url);
  for (const noProxy of ["example.com, 127.0.0.1", `127.0.0.1:${port}`, "10.0.0.0/8 127.0.0.0/8", "*"]) {
    const result = await runCli([...fakeFlags(fake), ...NO_PROBES, "-p", "hi"], {
      env: cleanEnv({ HTTP_PROXY: proxy.url, no_proxy: noProxy }),
    });
    assert.equal(result.code, 0, `${noProxy}: ${result.stderr}`);
  }
  assert.deepEqual(proxy.seen, []);
  assert.equal(fake.requests.length, 4);
  // Another port of the same host is not bypassed.
  const other = await runCli([...fakeFlags(fake), ...NO_PROBES, "-p", "hi"], {
    env: cleanEnv({ HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1:1" }),
  });
  assert.equal(other.stdout, "reply 5\n", other.stderr);
  assert.deepEqual(proxy.seen, [`POST ${fake.baseUrl}/chat/completions`]);
});

test("a proxy setting harness cannot use is an error naming the variable, and no request leaves", async () => {
  const fake = await serve([]);
  for (const [value, message] of [
    ["socks5://127.0.0.1:1080", "HTTP_PROXY: only http:// and https:// proxies are supported, not socks5://"],
    ["http://[bad", "HTTP_PROXY is not a URL: http://[bad"],
  ]) {
    const result = await runCli([...fakeFlags(fake), ...NO_PROBES, "-p", "hi"], {
      env: cleanEnv({ HTTP_PROXY: value }),
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(message.replace(/[[\]/.]/g, "\\$&")));
  }
  assert.equal(fake.requests.length, 0);
});

/** A page server on 127.0.0.1 (and ::1): one HTML page; records the paths asked. */
async function startPage(): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.url ?? "");
    response.writeHead(200, { "content-type": "text/html" }).end("<h1>Behind the proxy</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  onTestEnd(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

function fetchCall(url: string) {
  return [{ reply: { toolCalls: [{ id: "f1", name: "web_fetch", arguments: { url } }] } }, { reply: { text: "done" } }];
}

test("web_fetch goes through HTTP_PROXY, and the proxy is told the address harness checked, not the name", async () => {
  const page = await startPage();
  const fake = await serve(fetchCall(`http://localhost:${page.port}/notes`));
  const proxy = await startProxy();
  const env = cleanEnv({
    HTTP_PROXY: proxy.url,
    NO_PROXY: `127.0.0.1:${new URL(fake.url).port}`, // the model call goes direct; the page through the proxy
    HARNESS_WEB_FETCH_ALLOW: "127.0.0.1,::1",
  });
  const result = await runCli(["-y", ...fakeFlags(fake), ...NO_PROBES, "-p", "fetch it"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(fake.requests[1].body.messages.at(-1).content, /# Behind the proxy/);
  assert.equal(proxy.seen.length, 1);
  assert.match(proxy.seen[0], new RegExp(`^GET http://(127\\.0\\.0\\.1|\\[::1\\]):${page.port}/notes$`));
  assert.deepEqual(page.seen, ["/notes"]);
});

test("web_fetch's address check still holds behind a proxy: a name for loopback is refused before the proxy hears of it", async () => {
  // The proxy would reach loopback; it is the harness that must refuse, as it does without one.
  const page = await startPage();
  const fake = await serve(fetchCall(`http://localhost:${page.port}/secret`));
  const proxy = await startProxy();
  const env = cleanEnv({ HTTP_PROXY: proxy.url, NO_PROXY: `127.0.0.1:${new URL(fake.url).port}` });
  const result = await runCli(["-y", ...fakeFlags(fake), ...NO_PROBES, "-p", "fetch it"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(fake.requests[1].body.messages.at(-1).content, /private or loopback address/);
  assert.deepEqual(proxy.seen, []);
  assert.deepEqual(page.seen, []);
});

test("harness models and an MCP server over HTTP go through the proxy too", async () => {
  const fake = await serve([]);
  fake.models = ["behind-proxy"];
  const proxy = await startProxy();
  const env = cleanEnv({ HTTP_PROXY: proxy.url });
  const models = await runCli(["models", "--provider", "openai", "--base-url", fake.baseUrl], { env });
  assert.equal(models.code, 0, models.stderr);
  assert.equal(models.stdout, "behind-proxy\n");
  assert.deepEqual(proxy.seen, [`GET ${fake.baseUrl}/models`]);
  // The page server is no MCP server (the connection fails): what matters is the route the request took.
  const page = await startPage();
  const mcpUrl = `http://127.0.0.1:${page.port}/mcp`;
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ mcpServers: { remote: { url: mcpUrl } } }),
  );
  const mcp = await runCli(["mcp", "list"], { env });
  assert.equal(mcp.code, 1, mcp.stdout);
  assert.ok(proxy.seen.includes(`POST ${mcpUrl}`), proxy.seen.join("\n"));
  assert.ok(page.seen.includes("/mcp"));
});

test("the local model's download goes through the proxy, redirects followed and re-routed (NO_PROXY per hop)", async () => {
  const model = Buffer.from("GGUF not really, but bytes");
  const files = createServer((request, response) => {
    if (request.url === "/hub/tiny.gguf")
      return void response.writeHead(302, { location: `http://127.0.0.1:${port}/cdn/tiny.gguf` }).end();
    if (request.url === "/cdn/tiny.gguf") return void response.writeHead(200).end(model);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  onTestEnd(() => new Promise<void>((resolve) => files.close(() => resolve())));
  const port = (files.address() as AddressInfo).port;
  const proxy = await startProxy();
  const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
  Object.assign(process.env, { HTTP_PROXY: proxy.url, NO_PROXY: "example.com" });
  try {
    const path = join(tempDir(), "tiny.gguf");
    await downloadFile(`http://localhost:${port}/hub/tiny.gguf`, path, { signal: new AbortController().signal });
    assert.deepEqual(readFileSync(path), model);
  } finally {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  }
  assert.deepEqual(proxy.seen, [
    `GET http://localhost:${port}/hub/tiny.gguf`,
    `GET http://127.0.0.1:${port}/cdn/tiny.gguf`,
  ]);
});
