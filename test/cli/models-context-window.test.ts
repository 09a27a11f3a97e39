// The context window: config.json, then the server's own word (llama.cpp /props, Ollama
// /api/show), then the table, then a default. The servers here are tiny real HTTP servers.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { resolveContextWindow } from "../../src/providers/context-window.ts";
import type { ProviderSettings } from "../../src/providers/index.ts";
import { DEFAULT_CONTEXT_WINDOW, lookupContextWindow } from "../../src/providers/model-info.ts";
import { fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

interface Seen {
  method: string;
  path: string;
  body: string;
}

/** A server answering `routes["METHOD /path"]` as JSON and 404 to anything else; records every request. */
async function serveRoutes(routes: Record<string, unknown>): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? "", path: req.url ?? "", body });
    const answer = routes[`${req.method} ${req.url}`];
    res.writeHead(answer === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const servers: Server[] = [];
after(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

function settings(baseUrl: string, model: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return { name: "local", api: "openai", baseUrl, model, ...extra };
}

test("llama.cpp: n_ctx from GET /props wins over the table, and is asked once", async () => {
  const llama = await serveRoutes({
    "GET /props": { default_generation_settings: { n_ctx: 8192, params: {} }, total_slots: 1 },
  });
  const local = settings(`${llama.url}/v1`, "llama3.1:8b");
  assert.equal(await resolveContextWindow(local), 8192);
  assert.equal(await resolveContextWindow(local), 8192);
  assert.deepEqual(llama.seen.map((r) => `${r.method} ${r.path}`).sort(), ["GET /props", "POST /api/show"]);
});

test("Ollama: num_ctx from the model's parameters, else its trained context length", async () => {
  const modelInfo = { "general.architecture": "qwen3", "qwen3.context_length": 40960 };
  const ollama = await serveRoutes({
    "POST /api/show": {
      model_info: modelInfo,
      parameters: 'num_ctx                        16384\nstop                           "<|im_end|>"',
    },
  });
  assert.equal(await resolveContextWindow(settings(`${ollama.url}/v1`, "qwen3:8b")), 16384);
  assert.deepEqual(JSON.parse(ollama.seen.find((r) => r.path === "/api/show")?.body ?? ""), { model: "qwen3:8b" });

  const trainedOnly = await serveRoutes({
    "POST /api/show": { model_info: modelInfo, parameters: 'stop "<|im_end|>"' },
  });
  assert.equal(await resolveContextWindow(settings(`${trainedOnly.url}/v1`, "qwen3:8b")), 40960);
});

test("config.json's contextWindow wins, and then the server is not asked", async () => {
  const llama = await serveRoutes({ "GET /props": { default_generation_settings: { n_ctx: 8192 } } });
  assert.equal(await resolveContextWindow(settings(`${llama.url}/v1`, "my-model", { contextWindow: 65536 })), 65536);
  assert.equal(llama.seen.length, 0);
});

test("a server that cannot tell: the table, else the default; never an error", async () => {
  const silent = await serveRoutes({});
  assert.equal(await resolveContextWindow(settings(`${silent.url}/v1`, "gpt-4o")), 128_000);
  assert.equal(await resolveContextWindow(settings(`${silent.url}/v1`, "my-own-model")), DEFAULT_CONTEXT_WINDOW);
  const gone = await serveRoutes({});
  await new Promise((resolve) => gone.server.close(resolve));
  assert.equal(await resolveContextWindow(settings(`${gone.url}/v1`, "claude-sonnet-4-5")), 200_000);
  // Hosted APIs and Anthropic endpoints are not probed (this test runs without a network).
  assert.equal(await resolveContextWindow(settings("https://api.openai.com/v1", "gpt-4.1")), 1_047_576);
  assert.equal(
    await resolveContextWindow({
      name: "anthropic",
      api: "anthropic",
      baseUrl: "https://api.anthropic.com",
      model: "claude-opus-4-5",
    }),
    200_000,
  );
});

test("the table matches ids with vendor prefixes and Ollama tags", () => {
  const cases: Array<[string, number | undefined]> = [
    ["claude-sonnet-4-5-20250929", 200_000],
    ["anthropic/claude-sonnet-4.5", 200_000],
    ["gpt-5-mini", 400_000],
    ["openai/gpt-4o", 128_000],
    ["o4-mini", 200_000],
    ["deepseek-chat", 128_000],
    ["deepseek-r1:14b", 65_536],
    ["qwen3-coder:30b", 262_144],
    ["qwen3:8b", 32_768],
    ["llama3.3:70b", 131_072],
    ["llama3:8b", 8_192],
    ["unknown-model", undefined],
  ];
  assert.deepEqual(
    cases.map(([model]) => [model, lookupContextWindow(model)]),
    cases,
  );
});

test("the CLI's first request does not wait for the window probes of a custom base URL", async () => {
  // The reply takes seconds (a pause after each of its events), so the run outlives the probes' answers.
  const server = await serve([{ reply: { text: "hi", delayMs: 1000 } }]);
  server.windowProbeDelayMs = 1500; // a slow server, still inside the probe's 2 s limit
  const result = await runCli([...fakeFlags(server), "-p", "hi"]);
  assert.equal(result.stdout, "hi\n");
  assert.deepEqual(server.windowProbes.sort(), ["GET /props", "POST /api/show"]);
  assert.equal(server.windowProbesAnsweredAt.length, 2, "the probes were still asked, alongside");
  assert.ok(
    server.requests[0].receivedAt < Math.min(...server.windowProbesAnsweredAt),
    "the first request came before the probes were answered",
  );
});
