// config.json through the real CLI: which base URL, model, key and headers reach the server.
// Precedence per setting: flags, then environment, then config.json, then built-in defaults.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { type FakeLLM, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, runCli } from "../support/helpers.ts";

const servers: FakeLLM[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    assert.deepEqual(server.errors, []);
    await server.close();
  }
});

async function serve(script: ScriptStep[]): Promise<FakeLLM> {
  const server = await startFakeLLM(script);
  servers.push(server);
  return server;
}

function writeConfig(env: NodeJS.ProcessEnv, config: unknown): void {
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify(config, null, 2));
}

/** A custom OpenAI-compatible provider, plus keys other modules own (which must pass through). */
function myllmConfig(baseUrl: string) {
  return {
    provider: "myllm",
    model: "m-config",
    providers: {
      myllm: {
        api: "openai",
        baseUrl,
        apiKeyEnv: "MYLLM_KEY",
        headers: { "x-team": "blue" },
        models: { "m-config": { maxTokens: 1234 } },
      },
      other: { api: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m-other" },
    },
    mcpServers: { files: { command: "true" } },
  };
}

test("config.json: the default custom provider with its key variable, headers and per-model output cap", async () => {
  const fake = await serve([{ reply: { text: "from myllm" } }]);
  const env = cleanEnv({ MYLLM_KEY: "sk-myllm" });
  writeConfig(env, myllmConfig(fake.baseUrl));
  const result = await runCli(["-p", "hi"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "from myllm\n");
  const [request] = fake.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.body.model, "m-config");
  assert.equal(request.body.max_tokens, 1234);
  assert.equal(request.headers.authorization, "Bearer sk-myllm");
  assert.equal(request.headers["x-team"], "blue");
});

test("environment beats config.json, flags beat the environment, setting by setting", async () => {
  const fromConfig = await serve([]);
  const fromEnv = await serve([{ reply: { text: "env" } }]);
  const fromFlag = await serve([{ reply: { text: "flag" } }]);
  const env = cleanEnv({ MYLLM_KEY: "sk-myllm", HARNESS_BASE_URL: fromEnv.baseUrl, HARNESS_MODEL: "m-env" });
  writeConfig(env, myllmConfig(fromConfig.baseUrl));

  const byEnv = await runCli(["-p", "hi"], { env });
  assert.equal(byEnv.stdout, "env\n", byEnv.stderr);
  assert.equal(fromEnv.requests[0].body.model, "m-env");
  // The provider still comes from config.json, so its headers and key still apply.
  assert.equal(fromEnv.requests[0].headers["x-team"], "blue");
  assert.equal(fromEnv.requests[0].headers.authorization, "Bearer sk-myllm");

  const byFlag = await runCli(["--base-url", fromFlag.baseUrl, "--model", "m-flag", "--max-tokens", "99", "-p", "hi"], {
    env,
  });
  assert.equal(byFlag.stdout, "flag\n", byFlag.stderr);
  assert.equal(fromFlag.requests[0].body.model, "m-flag");
  assert.equal(fromFlag.requests[0].body.max_tokens, 99);
  assert.equal(fromConfig.requests.length, 0);
});

test("HARNESS_PROVIDER picks another configured provider; --provider beats it; config's model stays with its provider", async () => {
  const other = await serve([{ reply: { text: "other" } }]);
  const openai = await serve([{ reply: { text: "openai" } }]);
  const env = cleanEnv({ MYLLM_KEY: "sk-myllm", HARNESS_PROVIDER: "other", HARNESS_API_KEY: "sk-any" });
  const config = myllmConfig("http://127.0.0.1:9/v1");
  config.providers.other.baseUrl = other.baseUrl;
  writeConfig(env, config);

  const byEnv = await runCli(["-p", "hi"], { env });
  assert.equal(byEnv.stdout, "other\n", byEnv.stderr);
  assert.equal(other.requests[0].body.model, "m-other", "the provider's own model, not the top-level one of myllm");
  assert.equal(other.requests[0].headers["x-team"], undefined);
  assert.equal(other.requests[0].headers.authorization, "Bearer sk-any");

  const byFlag = await runCli(["--provider", "openai", "--base-url", openai.baseUrl, "-p", "hi"], { env });
  assert.equal(byFlag.stdout, "openai\n", byFlag.stderr);
  assert.equal(openai.requests[0].body.model, "gpt-5-mini", "the built-in default model");
  assert.equal(openai.requests[0].headers.authorization, "Bearer sk-any", "HARNESS_API_KEY serves any provider");
});

test("a custom Anthropic provider: its key as x-api-key, its headers, --max-tokens and --thinking", async () => {
  const fake = await serve([{ reply: { reasoning: "hmm", text: "from claude" } }]);
  const env = cleanEnv({ CORP_KEY: "corp-secret" });
  writeConfig(env, {
    provider: "corp",
    providers: {
      corp: {
        api: "anthropic",
        baseUrl: fake.url,
        apiKeyEnv: "CORP_KEY",
        model: "claude-sonnet-4-5",
        headers: { "x-gateway": "g1" },
      },
    },
  });
  const result = await runCli(["--max-tokens", "4000", "--thinking", "2000", "-p", "hi"], { env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "from claude\n");
  const [request] = fake.requests;
  assert.equal(request.path, "/v1/messages");
  assert.equal(request.headers["x-api-key"], "corp-secret");
  assert.equal(request.headers["x-gateway"], "g1");
  assert.equal(request.body.model, "claude-sonnet-4-5");
  assert.equal(request.body.max_tokens, 4000);
  assert.deepEqual(request.body.thinking, { type: "enabled", budget_tokens: 2000 });
});

test("a built-in provider's entry in config.json overrides its fields and keeps the rest", async () => {
  const fake = await serve([{ reply: { text: "proxied" } }]);
  const env = cleanEnv({ OPENAI_API_KEY: "sk-openai" });
  writeConfig(env, {
    provider: "openai",
    providers: { openai: { baseUrl: fake.baseUrl, headers: { "x-proxy": "1" } } },
  });
  const result = await runCli(["-p", "hi"], { env });
  assert.equal(result.stdout, "proxied\n", result.stderr);
  assert.equal(fake.requests[0].body.model, "gpt-5-mini");
  assert.equal(fake.requests[0].headers.authorization, "Bearer sk-openai");
  assert.equal(fake.requests[0].headers["x-proxy"], "1");
});
