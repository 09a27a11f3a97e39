// The model catalogue (src/providers/model-catalogue.ts) and the tables that are views of it: the
// context window, prices, Anthropic's output cap, thinking plans, aliases and the models a preset
// lists; config.json's entries first; an unknown model gets nothing, so its API's defaults.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultMaxTokens } from "../../src/providers/anthropic/anthropic-request.ts";
import type { ModelEntry } from "../../src/providers/catalogue/model-entry.ts";
import { catalogueEntries, describeModel, presetModels, resolveAlias } from "../../src/providers/model-catalogue.ts";
import { lookupContextWindow } from "../../src/providers/model-info.ts";
import { lookupPrices } from "../../src/providers/pricing.ts";
import { planThinking } from "../../src/providers/thinking.ts";
import { isApiKind } from "../../src/providers/wire-apis.ts";
import { configuredModels } from "../../src/settings/config-file.ts";

test("every built-in entry names its source, and the API it names is one harness speaks", () => {
  for (const entry of catalogueEntries()) {
    assert.match(entry.source, /^https:\/\//, `${entry.id}: source`);
    if (entry.api !== undefined) assert.ok(isApiKind(entry.api), `${entry.id}: api ${entry.api}`);
  }
});

test("facts combine from the first entry that states each: a snapshot gets its family's window and its model's prices", () => {
  const facts = describeModel({ model: "claude-sonnet-4-5-20250929" });
  assert.equal(facts.contextWindow, 200_000);
  assert.equal(facts.prices?.input, 3);
  assert.equal(facts.images, true);
  assert.equal(lookupContextWindow("openai/gpt-4o-2024-08-06"), 128_000);
  assert.equal(lookupContextWindow("qwen3:8b"), 32_768);
  assert.equal(lookupPrices("anthropic/claude-opus-4.5")?.output, 25);
  assert.equal(defaultMaxTokens("claude-3-5-haiku-20241022"), 8192);
  assert.equal(defaultMaxTokens("claude-opus-4-5"), 32_000, "harness's own cap below the model's 64k");
  assert.deepEqual(describeModel({ model: "my-own-model" }), { sources: [] }, "unknown: the API's defaults");
});

test("config.json's models come first, for the model and its snapshots, on every provider", () => {
  const configured = configuredModels({
    models: { "gpt-4o": { contextWindow: 64_000 }, "my-model": { images: false, thinking: false } },
  });
  assert.equal(lookupContextWindow("gpt-4o-2024-08-06", { configured }), 64_000);
  assert.equal(lookupPrices("gpt-4o", configured)?.input, 2.5, "what config.json does not say falls through");
  assert.equal(describeModel({ model: "my-model", configured }).images, false);
  assert.deepEqual(describeModel({ model: "my-model", configured }).sources, ["config.json"]);
  const plan = planThinking({
    api: "responses",
    name: "x",
    model: "my-model",
    baseUrl: "",
    thinking: "high",
    modelEntries: configured,
  });
  assert.deepEqual(plan.fields, {});
  assert.match(plan.notice ?? "", /my-model does not reason/);
});

test("server-side state is a catalogue fact, per wire API, with its source; config.json may state it", () => {
  const state = (model: string, configured?: ModelEntry[]) => describeModel({ model, configured }).serverState;
  assert.deepEqual(state("claude-sonnet-4-5-20250929"), ["anthropic"]);
  assert.deepEqual(state("anthropic/claude-opus-4.5"), ["anthropic"]);
  assert.equal(state("claude-3-5-haiku-latest"), undefined);
  assert.deepEqual(state("gpt-5.1-codex"), ["responses"]);
  assert.deepEqual(state("o4-mini"), ["responses"]);
  assert.equal(state("gpt-oss-120b"), undefined, "served by others only");
  const configured = configuredModels({ models: { "my-gpt": { serverState: ["responses"] } } });
  assert.deepEqual(state("my-gpt", configured), ["responses"]);
  assert.ok(
    describeModel({ model: "gpt-5" }).sources.includes("https://platform.openai.com/docs/guides/conversation-state"),
  );
});

test("a preset's entries list its models and may override facts while it is in use", () => {
  assert.deepEqual(presetModels("anthropic"), [
    "claude-opus-4-5",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-1",
  ]);
  assert.ok(presetModels("openrouter").includes("moonshotai/kimi-k2"));
  assert.deepEqual(presetModels("nobody"), []);
  // The design a sign-in provider uses: its own entry, only while it is the provider.
  const own: ModelEntry = { id: "gpt-5.1-codex", provider: "chatgpt", contextWindow: 272_000, source: "test" };
  assert.equal(lookupContextWindow("gpt-5.1-codex", { provider: "chatgpt", configured: [own] }), 272_000);
  assert.equal(lookupContextWindow("gpt-5.1-codex"), 400_000);
});

test("aliases are resolved on their own API only, a variable naming another id", () => {
  assert.deepEqual(resolveAlias("anthropic", "sonnet", {}), { id: "claude-sonnet-4-5" });
  assert.deepEqual(resolveAlias("anthropic", "opus", { ANTHROPIC_DEFAULT_OPUS_MODEL: "gw-opus" }), {
    id: "gw-opus",
    variable: "ANTHROPIC_DEFAULT_OPUS_MODEL",
  });
  assert.deepEqual(resolveAlias("gemini", "flash", {}), { id: "gemini-2.5-flash" });
  assert.equal(resolveAlias("openai", "sonnet", {}), undefined);
  assert.equal(resolveAlias("gemini", "sonnet", {}), undefined);
});

test("thinking from the catalogue: codex models cannot be off, Claude 3.5 takes none, a model with fewer efforts gets the nearest", () => {
  const plan = (api: "openai" | "responses" | "anthropic", model: string, thinking: "off" | "low" | "high") =>
    planThinking({ api, name: "p", model, baseUrl: "", thinking });
  for (const model of ["gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-max"]) {
    const off = plan("responses", model, "off");
    assert.deepEqual(off.fields, {}, model);
    assert.match(off.notice ?? "", /cannot turn its reasoning off \(low is the least\)/);
  }
  assert.deepEqual(plan("responses", "gpt-5.1", "off").fields, { reasoning: { effort: "none" } });
  assert.deepEqual(plan("openai", "gpt-5-mini", "off").fields, { reasoning_effort: "minimal" });
  const pro = plan("responses", "gpt-5-pro", "low");
  assert.deepEqual(pro.fields, { reasoning: { effort: "high", summary: "auto" } });
  assert.match(pro.notice ?? "", /--thinking low is sent as high .*: it takes high/);
  const claude35 = plan("anthropic", "claude-3-5-sonnet-20241022", "high");
  assert.deepEqual(claude35.fields, {});
  assert.match(claude35.notice ?? "", /claude-3-5-sonnet-20241022 does not support thinking/);
  assert.ok(plan("anthropic", "claude-3-7-sonnet-20250219", "high").fields.thinking);
});
