// The llama.cpp and Ollama window probes (GET /props, POST /api/show) go only to servers that look
// local or are configured so, and their answer is kept across runs: a cloud API has neither
// endpoint, and a 500-task batch against one made 1,000 such requests.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { resolveContextWindow } from "../../src/providers/context-window.ts";
import { looksLocal } from "../../src/providers/server-locality.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("which base URLs look local: loopback, private ranges, local-only names, one-label hosts, known local ports", () => {
  const local = [
    "http://127.0.0.1:5000/v1",
    "http://127.9.9.9/v1",
    "http://localhost:3000/v1",
    "http://gpu.localhost/v1",
    "http://[::1]:9000/v1",
    "http://[::ffff:127.0.0.1]/v1",
    "http://10.1.2.3/v1",
    "http://172.16.0.5/v1",
    "http://172.31.255.1/v1",
    "http://192.168.1.20:5000/v1",
    "http://169.254.1.1/v1",
    "http://100.100.1.1/v1",
    "http://[fd12:3456::1]/v1",
    "http://[fe80::1]/v1",
    "http://gpu-box.local/v1",
    "http://gpu-box.local./v1",
    "http://llm.home.arpa/v1",
    "http://llm.corp.internal/v1",
    "http://ollama/v1",
    "https://llm.example.com:11434/v1",
    "https://llm.example.com:8080/v1",
  ];
  const remote = [
    "https://api.openai.com/v1",
    "https://openrouter.ai/api/v1",
    "https://api.example.test/v1",
    "https://inference.example.com/v1",
    "http://172.32.0.1/v1",
    "http://192.169.1.1/v1",
    "http://8.8.8.8/v1",
    "http://[2001:db8::1]/v1",
    "https://local.example.com/v1",
    "not a url",
  ];
  assert.deepEqual(
    local.filter((url) => !looksLocal(url)),
    [],
    "all local",
  );
  assert.deepEqual(
    remote.filter((url) => looksLocal(url)),
    [],
    "none local",
  );
});

test("a server configured as not local is not probed, even on 127.0.0.1; the table answers", async () => {
  const server = await serve([]);
  const settings = { name: "box", api: "openai" as const, baseUrl: server.baseUrl, model: "gpt-4o", local: false };
  assert.equal(await resolveContextWindow(settings), 128_000);
  assert.deepEqual(server.windowProbes, []);
});

test('the CLI probes a 127.0.0.1 server once per base URL and model, across runs; config.json\'s "local": false stops it', async () => {
  // Each reply takes a second, so a run outlives its probes (which do not hold up the first request).
  const server = await serve([
    { reply: { text: "first", delayMs: 1000 } },
    { reply: { text: "second", delayMs: 1000 } },
    { reply: { text: "third", delayMs: 1000 } },
  ]);
  const env = cleanEnv();
  const first = await runCli([...fakeFlags(server), "-p", "hi"], { env });
  assert.equal(first.stdout, "first\n", first.stderr);
  assert.deepEqual(server.windowProbes.sort(), ["GET /props", "POST /api/show"]);
  assert.ok(existsSync(join(env.HARNESS_HOME as string, "cache", "context-windows.json")));
  const second = await runCli([...fakeFlags(server), "-p", "hi"], { env });
  assert.equal(second.stdout, "second\n", second.stderr);
  assert.equal(server.windowProbes.length, 2, "the second run used the first run's answer");

  const other = await serve([{ reply: { text: "not local", delayMs: 1000 } }]);
  const configured = cleanEnv();
  const config = { provider: "box", providers: { box: { api: "openai", baseUrl: other.baseUrl, local: false } } };
  writeFileSync(join(configured.HARNESS_HOME as string, "config.json"), JSON.stringify(config));
  const notLocal = await runCli(["--model", "fake-model", "-p", "hi"], { env: configured });
  assert.equal(notLocal.stdout, "not local\n", notLocal.stderr);
  assert.deepEqual(other.windowProbes, []);
  // A third run of the first server, with another HARNESS_HOME, asks again: the cache is the user's.
  const third = await runCli([...fakeFlags(server), "-p", "hi"], { env: cleanEnv() });
  assert.equal(third.stdout, "third\n", third.stderr);
  assert.equal(server.windowProbes.length, 4);
});
