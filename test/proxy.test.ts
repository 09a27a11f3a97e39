// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (src/core/proxy.ts) through the built CLI: every request
// harness makes goes through the proxy a user set, the TLS inside a tunnel is checked against
// NODE_EXTRA_CA_CERTS, NO_PROXY reaches the server directly, and web_fetch's address checks still
// judge the page's address, not the proxy's. The proxy is test/proxy-server.ts on 127.0.0.1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "./helpers.ts";
import { startProxy, startTlsFront } from "./proxy-server.ts";
import { needs } from "./system-programs.ts";

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
