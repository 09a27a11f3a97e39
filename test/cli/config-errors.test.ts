// A config that cannot work stops the CLI before any request, with a message naming what to fix.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, runCli } from "../support/helpers.ts";

/** An environment whose HARNESS_HOME holds this config.json text. */
function envWithConfig(text: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(extra);
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), text);
  return env;
}

function configFile(env: NodeJS.ProcessEnv): string {
  return join(env.HARNESS_HOME as string, "config.json");
}

const LOCAL = "http://127.0.0.1:9/v1";

test("an invalid field: exit 2, the file and the field named", async () => {
  const env = envWithConfig(JSON.stringify({ providers: { myllm: { api: "cohere", baseUrl: LOCAL } } }));
  const result = await runCli(["-p", "hi"], { env });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `harness: ${configFile(env)}: providers.myllm.api: expected one of "chat", "responses", "anthropic", "gemini"\n`,
  );
});

test("a misspelt key in a provider is an error, not silently ignored", async () => {
  const env = envWithConfig(JSON.stringify({ providers: { myllm: { api: "openai", baseURL: LOCAL } } }));
  const result = await runCli(["-p", "hi"], { env });
  assert.equal(result.code, 2);
  assert.equal(result.stderr, `harness: ${configFile(env)}: providers.myllm: unknown key "baseURL"\n`);
});

test("a custom provider without a base URL, bad prices, broken JSON: exit 2 each", async () => {
  const cases: Array<[string, RegExp]> = [
    [
      JSON.stringify({ providers: { myllm: { api: "openai" } } }),
      /providers\.myllm\.baseUrl: required for a custom provider/,
    ],
    [
      JSON.stringify({
        providers: { myllm: { api: "openai", baseUrl: LOCAL, models: { "gpt-4.1": { prices: { input: "3" } } } } },
      }),
      /providers\.myllm\.models\["gpt-4\.1"\]\.prices\.input: expected number, received string/,
    ],
    [
      JSON.stringify({ providers: { myllm: { api: "openai", baseUrl: LOCAL, contextWindow: 0 } } }),
      /providers\.myllm\.contextWindow: Too small/,
    ],
    ['{ "provider": "openai", }', /config\.json: not valid JSON/],
    ["[]", /config\.json: expected object, received array/],
  ];
  for (const [text, message] of cases) {
    const result = await runCli(["-p", "hi"], { env: envWithConfig(text) });
    assert.equal(result.code, 2, text);
    assert.match(result.stderr, message);
  }
});

test("a top-level typo in config.json or settings.json is an error (exit 2) naming the key meant; other modules' sections are accepted", async () => {
  const typo = envWithConfig(JSON.stringify({ provders: { myllm: { api: "openai", baseUrl: LOCAL } } }));
  const config = await runCli(["-p", "hi"], { env: typo });
  assert.equal(config.code, 2);
  assert.equal(config.stderr, `harness: ${configFile(typo)}: unknown key "provders" (did you mean "providers"?)\n`);

  // A misspelt "permissions" would silently drop its deny rules.
  const env = cleanEnv();
  const settingsFile = join(env.HARNESS_HOME as string, "settings.json");
  writeFileSync(settingsFile, JSON.stringify({ permisions: { deny: ["bash(rm:*)"] } }));
  const settings = await runCli(["--base-url", LOCAL, "-p", "hi"], { env });
  assert.equal(settings.code, 2);
  assert.equal(settings.stderr, `harness: ${settingsFile}: unknown key "permisions" (did you mean "permissions"?)\n`);

  const known = envWithConfig(
    JSON.stringify({
      $schema: "x",
      mcpServers: { files: { command: "x" } },
      provider: "myllm",
      providers: { myllm: { api: "openai", baseUrl: LOCAL, apiKeyEnv: "MYLLM_KEY", model: "m" } },
    }),
  );
  writeFileSync(
    join(known.HARNESS_HOME as string, "settings.json"),
    JSON.stringify({ hooks: {}, permissions: { deny: [] } }),
  );
  const result = await runCli(["-p", "hi"], { env: known });
  // It got past both files: the next thing missing is the key.
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    "error: no API key for myllm: set MYLLM_KEY (or HARNESS_API_KEY), or choose another --provider\n",
  );
});

test("no key anywhere: the message names the variable for the provider chosen", async () => {
  const none = await runCli(["-p", "hi"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY/);
  const anthropic = await runCli(["-p", "hi"], { env: envWithConfig(JSON.stringify({ provider: "anthropic" })) });
  assert.equal(anthropic.code, 1);
  assert.match(anthropic.stderr, /no API key for anthropic: set ANTHROPIC_API_KEY/);
});

test("an unknown provider lists the built-in and the configured ones (exit 2)", async () => {
  const env = envWithConfig(JSON.stringify({ providers: { myllm: { api: "openai", baseUrl: LOCAL } } }));
  const result = await runCli(["--provider", "nope", "-p", "hi"], { env });
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /unknown provider "nope"; choose one of: openai, anthropic, openrouter, gemini, ollama.*myllm/,
  );
});

test("--max-tokens and --thinking are checked before any call", async () => {
  const anthropic = [
    "--provider",
    "anthropic",
    "--base-url",
    "http://127.0.0.1:9",
    "--model",
    "claude-sonnet-4-5",
    "-p",
    "hi",
  ];
  const cases: Array<[string[], RegExp]> = [
    [["--max-tokens", "lots", ...anthropic], /--max-tokens takes a positive whole number/],
    [
      ["--thinking", "40000", ...anthropic],
      /--thinking 40000 must be below the output limit \(32000 tokens\); raise --max-tokens or lower --thinking/,
    ],
    [["--thinking", "2000", "--max-tokens", "2000", ...anthropic], /must be below the output limit \(2000 tokens\)/],
    [["--thinking", "500", ...anthropic], /--thinking takes at least 1024 tokens/],
    [["--thinking", "lots", ...anthropic], /--thinking takes off, low, medium, high or a token budget/],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 2, args.join(" "));
    assert.match(result.stderr, message);
  }
});
