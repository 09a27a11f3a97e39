// `harness models` against the fake server: what it asks, with which headers, and what it prints.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeServerPerTest, runCli } from "../support/helpers.ts";

const serve = fakeServerPerTest();

async function serveModels(models: string[] | undefined): Promise<FakeLLM> {
  const server = await serve([]);
  server.models = models;
  return server;
}

test("OpenAI-compatible: GET {base}/models with the key; ids sorted, one per line", async () => {
  const fake = await serveModels(["qwen3:8b", "llama3.1:8b"]);
  const result = await runCli(["models", "--provider", "openai", "--base-url", fake.baseUrl], {
    env: cleanEnv({ HARNESS_API_KEY: "sk-list" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "llama3.1:8b\nqwen3:8b\n");
  assert.equal(fake.requests.length, 1);
  assert.equal(fake.requests[0].method, "GET");
  assert.equal(fake.requests[0].path, "/v1/models");
  assert.equal(fake.requests[0].headers.authorization, "Bearer sk-list");
});

test("Anthropic, from config.json: GET /v1/models with x-api-key, anthropic-version and the provider's headers", async () => {
  const fake = await serveModels(["claude-sonnet-4-5", "claude-haiku-4-5"]);
  const env = cleanEnv({ CORP_KEY: "corp-secret" });
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({
      provider: "corp",
      providers: {
        corp: { api: "anthropic", baseUrl: fake.url, apiKeyEnv: "CORP_KEY", headers: { "x-gateway": "g1" } },
      },
    }),
  );
  const result = await runCli(["models"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "claude-haiku-4-5\nclaude-sonnet-4-5\n");
  const [request] = fake.requests;
  assert.equal(request.path, "/v1/models");
  assert.equal(request.headers["x-api-key"], "corp-secret");
  assert.equal(request.headers["anthropic-version"], "2023-06-01");
  assert.equal(request.headers["x-gateway"], "g1");
});

test("an endpoint without a model list: a clear error, exit 1", async () => {
  const fake = await serveModels(undefined);
  const result = await runCli(["models", "--provider", "openai", "--base-url", fake.baseUrl]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.equal(
    result.stderr,
    `harness models: openai at ${fake.baseUrl} does not list its models (GET ${fake.baseUrl}/models answered 404)\n`,
  );
  assert.deepEqual(fake.errors.splice(0), ["request 1 to unknown path /v1/models"]);
});

test("no key: the variable to set is named; a bad flag is a usage error", async () => {
  const noKey = await runCli(["models", "--provider", "openrouter"]);
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /set OPENROUTER_API_KEY/);
  const badFlag = await runCli(["models", "--frobnicate"]);
  assert.equal(badFlag.code, 2);
  const unreachable = await runCli(["models", "--base-url", "http://127.0.0.1:9/v1"]);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /^harness models: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models/);
});
