// One connection serves a whole session, for every wire API: a tool loop of several model calls
// through the built CLI opens one TCP connection to the server (direct), one to an HTTP proxy
// (http URL, absolute form) and one CONNECT tunnel (https URL through HTTPS_PROXY). Chat
// completions used to stop reading at `[DONE]` and destroy the socket, so every step opened a new
// connection; every call through HTTPS_PROXY opened a new tunnel (src/providers/post-json.ts,
// src/shared/proxy.ts).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { openaiFormat } from "../support/fake-llm/openai-format.ts";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, jsonLines, runCli, tempDir } from "../support/helpers.ts";
import { startProxy, startTlsFront } from "../support/proxy-server.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

/** Each wire API's flags for a server at `base` (the fake's own URL or the TLS front's), and its key. */
const APIS: Record<string, { flags(base: string): string[]; env: Record<string, string> }> = {
  chat: {
    flags: (base) => ["--provider", "openai", "--base-url", `${base}/v1`, "--model", "gpt-5-mini"],
    env: { OPENAI_API_KEY: "sk-test" },
  },
  responses: {
    flags: (base) => [
      "--provider",
      "openai",
      "--api",
      "responses",
      "--base-url",
      `${base}/v1`,
      "--model",
      "gpt-5-mini",
    ],
    env: { OPENAI_API_KEY: "sk-test" },
  },
  anthropic: {
    flags: (base) => ["--provider", "anthropic", "--base-url", base, "--model", "claude-sonnet-4-5"],
    env: { ANTHROPIC_API_KEY: "sk-ant-test" },
  },
  gemini: {
    flags: (base) => ["--provider", "gemini", "--base-url", `${base}/v1beta`, "--model", "gemini-2.5-flash"],
    env: { GEMINI_API_KEY: "gm-test" },
  },
};

/** Three model calls: two tool steps, then the answer. */
function toolLoop(): ScriptStep[] {
  return [
    { reply: { toolCalls: [{ id: "call1", name: "read_file", arguments: { path: "notes.txt" } }] } },
    { reply: { toolCalls: [{ id: "call2", name: "read_file", arguments: { path: "notes.txt" } }] } },
    { reply: { text: "read it twice" } },
  ];
}

/** Runs the loop; the fixed context window keeps window probes out, so model calls are the only requests. */
async function runLoop(fake: FakeLLM, flags: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "a note\n");
  const result = await runCli(["-y", ...flags, "--context-window", "100000", "-p", "read notes.txt"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "read it twice\n");
  assert.equal(fake.requests.length, 3);
  assert.deepEqual(fake.errors, []);
}

for (const [api, { flags, env }] of Object.entries(APIS)) {
  test(`${api}: a three-call tool loop uses one connection, direct and through HTTP_PROXY`, async () => {
    const direct = await serve(toolLoop());
    await runLoop(direct, flags(direct.url), cleanEnv(env));
    assert.equal(direct.connections, 1, "connections the server saw");

    const proxied = await serve(toolLoop());
    const proxy = await startProxy();
    await runLoop(proxied, flags(proxied.url), cleanEnv({ ...env, HTTP_PROXY: proxy.url }));
    assert.equal(proxy.seen.length, 3, proxy.seen.join("\n"));
    assert.equal(proxy.connections, 1, "connections the proxy saw");
  });

  test(`${api}: a three-call tool loop through HTTPS_PROXY opens one CONNECT tunnel`, {
    skip: needs("openssl"),
  }, async () => {
    const fake = await serve(toolLoop());
    const front = await startTlsFront(Number(new URL(fake.url).port));
    const proxy = await startProxy();
    await runLoop(
      fake,
      flags(front.url),
      cleanEnv({ ...env, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: front.caFile }),
    );
    assert.deepEqual(proxy.seen, [`CONNECT ${new URL(front.url).host}`]);
    assert.equal(proxy.connections, 1);
    assert.equal(fake.connections, 1, "connections behind the TLS front");
  });
}

test("what follows [DONE] is read, within a bound: a short tail keeps the connection, a long one closes it", async () => {
  /** A tool call streamed whole, then `tail` after its [DONE], in slices; then the answer. */
  const callThen = (tail: string, answer: string): ScriptStep[] => [
    {
      raw:
        openaiFormat
          .streamEvents({ toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "notes.txt" } }] })
          .join("") + tail,
      sliceBytes: 4096,
    },
    { reply: { text: answer } },
  ];
  // A comment after [DONE] (a proxy's keep-alive ping) is read away; 200 KB more is past the 64 KiB bound.
  const fake = await serve(callThen(": ping\n\n", "short tail"));
  await runLoopTo(fake, "short tail");
  assert.equal(fake.connections, 1);
  const flooding = await serve(callThen(`: ${"x".repeat(200_000)}\n\n`, "long tail"));
  await runLoopTo(flooding, "long tail");
  assert.equal(flooding.connections, 2, "the connection that kept sending was closed, the next call opened one");
});

async function runLoopTo(fake: FakeLLM, answer: string): Promise<void> {
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "a note\n");
  const result = await runCli(["-y", ...APIS.chat.flags(fake.url), "--context-window", "100000", "-p", "read"], {
    cwd,
    env: cleanEnv(APIS.chat.env),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `${answer}\n`);
  assert.deepEqual(fake.errors, []);
}

test("a kept-alive connection the server closed goes again at once on a new one: no retry, no wait", async () => {
  const fake = await serve(toolLoop());
  // In front of the fake: each connection serves one request and is reset when the next starts on it,
  // as a server that closed an idle connection while the client was reusing it.
  let connections = 0;
  const front = createServer((client) => {
    connections++;
    let requests = 0;
    const upstream = connect(Number(new URL(fake.url).port), "127.0.0.1");
    client.on("data", (chunk: Buffer) => {
      if (chunk.subarray(0, 5).toString() === "POST ") requests++;
      if (requests > 1) return void client.resetAndDestroy();
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.writable && client.write(chunk));
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  onTestEnd(() => new Promise<void>((resolve) => front.close(() => resolve())));
  const cwd = tempDir();
  writeFileSync(join(cwd, "notes.txt"), "a note\n");
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const result = await runCli(
    ["-y", ...APIS.chat.flags(url), "--context-window", "100000", "--output", "stream-json", "-p", "read notes.txt"],
    { cwd, env: cleanEnv(APIS.chat.env) },
  );
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  assert.deepEqual(
    events.filter((event) => event.type === "retry"),
    [],
  );
  assert.equal(fake.requests.length, 3);
  assert.equal(connections, 3, "one connection per call, each reset when reused");
  assert.deepEqual(fake.errors, []);
});
