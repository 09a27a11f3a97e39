// What a run costs: the price table, the arithmetic, the summary line, and the CLI's `cost`.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  costOf,
  costOfSpent,
  formatSpent,
  formatUsageAndCost,
  lookupPrices,
  sessionPrices,
} from "../../src/providers/pricing.ts";
import { formatTokens } from "../../src/shared/helpers.ts";
import {
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  runCli,
  runInTerminal,
  withoutSandboxWarning,
} from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("the table matches ids as vendors, OpenRouter and dated snapshots spell them", () => {
  const sonnet = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  assert.deepEqual(lookupPrices("claude-sonnet-4-5"), sonnet);
  assert.deepEqual(lookupPrices("claude-sonnet-4-5-20250929"), sonnet);
  assert.deepEqual(lookupPrices("anthropic/claude-sonnet-4.5"), sonnet);
  assert.deepEqual(lookupPrices("claude-opus-4-5"), { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 });
  assert.deepEqual(lookupPrices("claude-opus-4-1-20250805"), {
    input: 15,
    output: 75,
    cacheRead: 1.5,
    cacheWrite: 18.75,
  });
  assert.equal(lookupPrices("claude-haiku-4-5")?.input, 1);
  assert.equal(lookupPrices("gpt-5")?.input, 1.25);
  assert.equal(lookupPrices("openai/gpt-5-mini")?.input, 0.25);
  assert.equal(lookupPrices("gpt-4o-mini")?.input, 0.15);
  assert.equal(lookupPrices("gpt-4o-2024-08-06")?.input, 2.5);
  assert.equal(lookupPrices("gpt-4.1")?.output, 8);
  assert.equal(lookupPrices("o3")?.output, 8);
  assert.equal(lookupPrices("deepseek-chat")?.output, 0.42);
  assert.equal(lookupPrices("qwen3:8b"), undefined);
  assert.equal(lookupPrices("fake-model"), undefined);
});

test("cost adds each kind of token at its own rate, to the micro-dollar", () => {
  const usage = { input: 1050, output: 120, cacheRead: 3000, cacheWrite: 2200 };
  assert.equal(costOf(usage, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }), 0.0141);
  assert.equal(
    costOf(
      { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 },
      { input: 0.1, output: 0, cacheRead: 0, cacheWrite: 0 },
    ),
    0,
  );
});

test("the summary line: every input token counted, cache use in brackets, the cost", () => {
  const usage = { input: 400, output: 350, cacheRead: 800, cacheWrite: 0 };
  assert.equal(formatUsageAndCost(usage, "claude-sonnet-4-5"), "tokens: 1.2k in (800 cached) · 350 out · $0.0067");
  assert.equal(
    formatUsageAndCost({ input: 10, output: 5, cacheRead: 0, cacheWrite: 300 }, "x", {
      input: 1000,
      output: 1000,
      cacheRead: 0,
      cacheWrite: 0,
    }),
    "tokens: 310 in (300 to cache) · 5 out · $0.0150",
  );
  assert.equal(
    formatUsageAndCost({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }, "fake-model"),
    'tokens: 10 in · 5 out · $0 (no price known for model "fake-model": counted as free; set its prices in config.json)',
  );
  assert.deepEqual([950, 1200, 12_345, 1_500_000].map(formatTokens), ["950", "1.2k", "12k", "1.5M"]);
});

test("tokens spent on several models: each priced at its own (configured prices only for the session's model); an unpriced one is named", () => {
  const usage = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 };
  const prices = sessionPrices({ model: "house-model", prices: { input: 1, output: 10, cacheRead: 0, cacheWrite: 0 } });
  const spent = [
    { model: "house-model", usage },
    { model: "gpt-4o-mini", usage },
  ];
  // 1000 × 1 + 100 × 10 = 2000, and 1000 × 0.15 + 100 × 0.6 = 210 micro-dollars.
  assert.deepEqual(costOfSpent(spent, prices), { cost: 0.00221, unpriced: [] });
  assert.equal(formatSpent(spent, prices), "tokens: 2k in · 200 out · $0.0022");
  const withUnknown = [...spent, { model: "mystery-model", usage }];
  assert.deepEqual(costOfSpent(withUnknown, prices), { cost: 0.00221, unpriced: ["mystery-model"] });
  assert.match(formatSpent(withUnknown, prices), /\$0\.0022 \(no price known for model "mystery-model"/);
});

test("--output json: the final event carries the cost of every turn, cached tokens included", async () => {
  const turn1 = {
    input_tokens: 1000,
    output_tokens: 100,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 2000,
  };
  const turn2 = {
    input_tokens: 50,
    output_tokens: 20,
    cache_read_input_tokens: 3000,
    cache_creation_input_tokens: 200,
  };
  const fake = await serve([
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }], usage: turn1 } },
    { reply: { text: "done", usage: turn2 } },
  ]);
  const flags = [
    "--provider",
    "anthropic",
    "--base-url",
    fake.url,
    "--model",
    "claude-sonnet-4-5",
    "-y",
    "--output",
    "json",
  ];
  const result = await runCli([...flags, "-p", "go"], { env: cleanEnv({ HARNESS_API_KEY: "k" }) });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(withoutSandboxWarning(result.stderr), "");
  const done = JSON.parse(result.stdout);
  assert.deepEqual(done.usage, { input: 1050, output: 120, cacheRead: 3000, cacheWrite: 2200 });
  assert.equal(done.cost, 0.0141);
});

test("prices in config.json override the table (OpenAI cached tokens at the cache-read rate)", async () => {
  const usage = {
    prompt_tokens: 1_000_000,
    completion_tokens: 500_000,
    prompt_tokens_details: { cached_tokens: 200_000 },
  };
  const fake = await serve([{ reply: { text: "ok", usage } }]);
  const env = cleanEnv();
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({ providers: { openai: { prices: { input: 1, output: 2, cacheRead: 0.5 } } } }),
  );
  const result = await runCli([...fakeFlags(fake), "--output", "json", "-p", "hi"], { env });
  const done = JSON.parse(result.stdout);
  assert.deepEqual(done.usage, { input: 800_000, output: 500_000, cacheRead: 200_000, cacheWrite: 0 });
  assert.equal(done.cost, 1.9);
});

test("config.json's models are catalogue entries: a run prices by them, and harness models --known shows them first, with their source", async () => {
  const fake = await serve([{ reply: { text: "ok", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } } }]);
  const env = cleanEnv();
  writeFileSync(
    join(env.HARNESS_HOME as string, "config.json"),
    JSON.stringify({
      models: { "fake-model": { prices: { input: 3, output: 4 }, images: false, geminiSchema: true } },
    }),
  );
  const run = await runCli([...fakeFlags(fake), "--output", "json", "-p", "hi"], { env });
  assert.equal(JSON.parse(run.stdout).cost, 3);
  const known = await runCli(["models", "--known"], { env });
  assert.equal(known.code, 0, known.stderr);
  const lines = known.stdout.trimEnd().split("\n");
  assert.equal(lines[0], "fake-model  text only  $3/$4 per M  Gemini's tool schemas  (config.json)");
  assert.ok(lines.some((line) => /^claude-sonnet-4-5 {2}api anthropic {2}window 200k .*alias sonnet/.test(line)));
  const one = await runCli(["models", "--known", "--model", "claude-3-5-haiku-20241022"], { env });
  assert.deepEqual(one.stdout.split("\n").slice(0, 4), [
    "claude-3-5-haiku-20241022:",
    "  window 200k  (claude-*: https://docs.claude.com/en/docs/about-claude/models/overview)",
    "  output 8.2k  (claude-3-5-haiku: https://docs.claude.com/en/docs/about-claude/models/overview)",
    "  no thinking  (claude-3-5-haiku: https://docs.claude.com/en/docs/about-claude/models/overview)",
  ]);
});

test("an unknown model is free: no cost in JSON, no warning off a terminal, one warning on one", {
  skip: needs("script"),
}, async () => {
  const fake = await serve([
    { reply: { text: "json" } },
    { reply: { toolCalls: [{ name: "bash", arguments: { command: "true" } }] } },
    { reply: { text: "tty answer" } },
  ]);
  const json = await runCli([...fakeFlags(fake), "--output", "json", "-p", "hi"]);
  assert.equal(json.code, 0);
  assert.equal(withoutSandboxWarning(json.stderr), "");
  assert.equal(JSON.parse(json.stdout).cost, undefined);

  // Two model calls under a pseudo-terminal: the warning still comes once, in the summary.
  const tty = await runInTerminal([...fakeFlags(fake), "-y", "-p", "hi"]);
  assert.equal(tty.code, 0, tty.output);
  assert.match(tty.output, /tty answer/);
  assert.match(tty.output, /tokens: 20 in · 10 out · \$0 \(no price known for model "fake-model"/);
  assert.equal(tty.output.match(/no price known/g)?.length, 1);
});
