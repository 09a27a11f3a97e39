// The variables users of Claude Code, the OpenAI SDK and Codex, Ollama and Gemini CLI already have
// (src/wiring/vendor-environment.ts), through the built CLI: a key goes to the host the user
// configured (a fake "gateway" on one loopback port) and never to another (the fake "vendor" on
// another, reached only through harness's own --base-url / HARNESS_BASE_URL, which still win).
// Every run has a loopback proxy as HTTPS_PROXY and HTTP_PROXY that refuses anything but loopback,
// so a request meant for a vendor's real host is refused there and seen, never sent out.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { startProxy, type TestProxy } from "../support/proxy-server.ts";

const serve = fakeServerPerTest();
const NO_PROBES = ["--context-window", "100000"];

async function guarded(extra: Record<string, string>): Promise<{ env: NodeJS.ProcessEnv; proxy: TestProxy }> {
  const proxy = await startProxy();
  return { proxy, env: cleanEnv({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1", ...extra }) };
}

async function run(args: string[], env: NodeJS.ProcessEnv, answer = "ok") {
  const result = await runCli([...NO_PROBES, ...args, "-p", "hi"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `${answer}\n`);
  return result;
}

function only(fake: FakeLLM, path: string): Record<string, string | string[] | undefined> {
  assert.deepEqual(
    fake.requests.map((request) => request.path),
    [path],
  );
  return fake.requests[0].headers;
}

test("ANTHROPIC_BASE_URL: the Anthropic key goes to the gateway; --base-url and HARNESS_BASE_URL still win", async () => {
  const gateway = await serve([{ reply: { text: "ok" } }]);
  const vendor = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const { env, proxy } = await guarded({ ANTHROPIC_BASE_URL: gateway.url, ANTHROPIC_API_KEY: "sk-ant-gw" });
  await run(["--model", "claude-sonnet-4-5"], env);
  assert.equal(only(gateway, "/v1/messages")["x-api-key"], "sk-ant-gw");
  await run(["--base-url", vendor.url, "--model", "claude-sonnet-4-5"], env);
  await run(["--model", "claude-sonnet-4-5"], { ...env, HARNESS_BASE_URL: vendor.url });
  assert.equal(gateway.requests.length, 1);
  assert.deepEqual(
    vendor.requests.map((request) => [request.path, request.headers["x-api-key"]]),
    [
      ["/v1/messages", "sk-ant-gw"],
      ["/v1/messages", "sk-ant-gw"],
    ],
  );
  assert.deepEqual(proxy.seen, []);
});

test("ANTHROPIC_AUTH_TOKEN with ANTHROPIC_BASE_URL, as gateways have Claude Code users set: a bearer token, no x-api-key", async () => {
  const gateway = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const { env, proxy } = await guarded({ ANTHROPIC_BASE_URL: gateway.url, ANTHROPIC_AUTH_TOKEN: "gw-token" });
  await run(["--model", "sonnet"], env);
  const headers = only(gateway, "/v1/messages");
  assert.equal(headers.authorization, "Bearer gw-token");
  assert.equal(headers["x-api-key"], undefined);
  // ANTHROPIC_API_KEY wins, as in Claude Code.
  await run(["--model", "sonnet"], { ...env, ANTHROPIC_API_KEY: "sk-ant-key" });
  assert.equal(gateway.requests[1].headers["x-api-key"], "sk-ant-key");
  assert.equal(gateway.requests[1].headers.authorization, undefined);
  assert.deepEqual(proxy.seen, []);
});

test("OPENAI_BASE_URL: the OpenAI key goes to the gateway as a bearer token, for chat and responses", async () => {
  const gateway = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const { env, proxy } = await guarded({ OPENAI_BASE_URL: `${gateway.baseUrl}/`, OPENAI_API_KEY: "sk-gw" });
  await run(["--model", "gpt-5-mini"], env);
  await run(["--api", "responses", "--model", "gpt-5-mini"], env);
  assert.deepEqual(
    gateway.requests.map((request) => [request.path, request.headers.authorization]),
    [
      ["/v1/chat/completions", "Bearer sk-gw"],
      ["/v1/responses", "Bearer sk-gw"],
    ],
  );
  assert.deepEqual(proxy.seen, []);
});

test("OLLAMA_HOST as Ollama reads it: host:port without a scheme, a URL with a slash; a bad port is an error", async () => {
  const server = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const { port } = new URL(server.url);
  for (const host of [`127.0.0.1:${port}`, `"http://127.0.0.1:${port}/"`]) {
    const { env } = await guarded({ OLLAMA_HOST: host });
    await run(["--provider", "ollama"], env);
  }
  assert.deepEqual(
    server.requests.map((request) => [request.path, request.body.model]),
    [
      ["/v1/chat/completions", "qwen3"],
      ["/v1/chat/completions", "qwen3"],
    ],
  );
  const { env } = await guarded({ OLLAMA_HOST: "127.0.0.1:99999" });
  const bad = await runCli(["--provider", "ollama", "-p", "hi"], { env });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /OLLAMA_HOST takes host, host:port or an http\(s\) URL, as Ollama reads it \(got "127\.0\.0\.1:99999"\)/,
  );
});

test("GOOGLE_API_KEY chooses Gemini and goes to GOOGLE_GEMINI_BASE_URL; GEMINI_API_KEY wins, with a notice", async () => {
  const gateway = await serve([{ reply: { text: "ok" } }, { reply: { text: "ok" } }]);
  const { env, proxy } = await guarded({ GOOGLE_GEMINI_BASE_URL: gateway.url, GOOGLE_API_KEY: "g-google" });
  await run([], env);
  const both = await run([], { ...env, GEMINI_API_KEY: "g-gemini" });
  assert.match(both.stderr, /using the key in GEMINI_API_KEY; GOOGLE_API_KEY holds another, not used/);
  assert.deepEqual(
    gateway.requests.map((request) => [request.path, request.headers["x-goog-api-key"]]),
    [
      ["/v1beta/models/gemini-2.5-flash:streamGenerateContent", "g-google"],
      ["/v1beta/models/gemini-2.5-flash:streamGenerateContent", "g-gemini"],
    ],
  );
  assert.deepEqual(proxy.seen, []);
});

test("--base-url without --provider takes the provider whose key is set: Anthropic's, with its key", async () => {
  const server = await serve([{ reply: { text: "ok" } }]);
  const { env } = await guarded({ ANTHROPIC_API_KEY: "sk-ant-only" });
  await run(["--base-url", server.url, "--model", "claude-sonnet-4-5"], env);
  assert.equal(only(server, "/v1/messages")["x-api-key"], "sk-ant-only");
});

test("--base-url without --provider never sends a Google key to a host that is not Google's", async () => {
  // GOOGLE_API_KEY is often a Maps or Cloud key: the red team saw it go to a local server given as
  // a keyless OpenAI-compatible endpoint, and to `harness models` there.
  const server = await serve([{ reply: { text: "ok" } }]);
  const { env } = await guarded({ GOOGLE_API_KEY: "AIza-maps-key", GEMINI_API_KEY: "AIza-gemini-key" });
  await run(["--base-url", server.url, "--model", "local-model"], env);
  const headers = only(server, "/chat/completions");
  assert.doesNotMatch(JSON.stringify(headers), /AIza/);
});

test("model aliases: sonnet, opus, haiku and Gemini's flash resolve to ids, said once; ANTHROPIC_DEFAULT_*_MODEL names another", async () => {
  const server = await serve(Array.from({ length: 5 }, () => ({ reply: { text: "ok" } })));
  const { env } = await guarded({ ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "g" });
  const flags = ["--provider", "anthropic", "--base-url", server.url];
  const sonnet = await run([...flags, "--model", "sonnet"], env);
  assert.equal(sonnet.stderr.match(/model "sonnet" is claude-sonnet-4-5/g)?.length, 1, sonnet.stderr);
  await run([...flags, "--model", "opus"], env);
  await run([...flags, "--model", "haiku"], { ...env, ANTHROPIC_DEFAULT_HAIKU_MODEL: "gateway/haiku" });
  await run([...flags, "--model", "claude-opus-4-1"], env);
  const flash = await run(["--provider", "gemini", "--base-url", `${server.url}/v1beta`, "--model", "flash"], env);
  assert.match(flash.stderr, /model "flash" is gemini-2\.5-flash/);
  assert.deepEqual(
    server.requests.map((request) => request.body.model ?? request.path),
    [
      "claude-sonnet-4-5",
      "claude-opus-4-5",
      "gateway/haiku",
      "claude-opus-4-1",
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    ],
  );
});
