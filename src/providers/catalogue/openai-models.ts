// OpenAI's models, as https://platform.openai.com/docs/models (windows, output limits, image
// input, reasoning) and https://openai.com/api/pricing (prices; OpenAI charges nothing extra for
// writing the cache) gave them in November 2025. Reasoning efforts, and what `off` maps to:
// gpt-5.1 turns reasoning off with `none` ("Supported values are: 'none', 'low', 'medium', and
// 'high'", anomalyco/opencode#4451); gpt-5 goes down to `minimal`; the codex models take neither
// ("'none' is not supported with the 'gpt-5.1-codex' model. Supported values are: 'low', 'medium',
// and 'high'", openai/codex#6647; "'minimal' is not supported with the 'gpt-5-codex' model",
// issue 41), gpt-5.1-codex-mini only medium and high (router-for-me/CLIProxyAPI#249); o-series
// and gpt-oss no lower than low.
import type { ModelEntry } from "./model-entry.ts";

const MODELS = "https://platform.openai.com/docs/models";
const EFFORTS = ["low", "medium", "high"] as const;
/** Reasoning that cannot be turned off. */
const ALWAYS = { efforts: EFFORTS, off: null } as const;
const GPT5 = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };

export const OPENAI_MODELS: readonly ModelEntry[] = [
  // Stored responses continued by `previous_response_id`: every model OpenAI serves on the
  // Responses API (gpt-oss is served by others only).
  {
    id: "gpt-*, o*",
    match: /^(?:gpt-(?!oss)|o[134](?:$|-)|codex-|chatgpt)/,
    serverState: ["responses"],
    source: "https://platform.openai.com/docs/guides/conversation-state",
  },
  { id: "gpt-5.1-codex-mini", api: "responses", thinking: { efforts: ["medium", "high"], off: null }, source: MODELS },
  { id: "gpt-5.1-codex", match: /^gpt-5\.\d+-codex/, api: "responses", thinking: ALWAYS, prices: GPT5, source: MODELS },
  { id: "gpt-5-codex", api: "responses", thinking: ALWAYS, prices: GPT5, source: MODELS },
  { id: "codex-mini-latest", api: "responses", thinking: ALWAYS, source: MODELS },
  {
    id: "gpt-5-chat-latest",
    match: /^gpt-5(\.\d+)?-chat/,
    api: "openai",
    thinking: false,
    prices: GPT5,
    source: MODELS,
  },
  {
    id: "gpt-5-pro",
    api: "responses",
    maxOutput: 272_000,
    thinking: { efforts: ["high"], off: null },
    prices: { input: 15, output: 120, cacheRead: 15, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-5-mini",
    match: /^gpt-5(\.\d+)?-mini/,
    api: "openai",
    prices: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-5-nano",
    match: /^gpt-5(\.\d+)?-nano/,
    api: "openai",
    prices: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
    source: MODELS,
  },
  { id: "gpt-5.1", match: /^gpt-5\.\d+/, api: "openai", thinking: { efforts: EFFORTS, off: "none" }, source: MODELS },
  { id: "gpt-5", match: /^gpt-5($|[-:])/, api: "openai", prices: GPT5, source: MODELS },
  {
    id: "gpt-5*",
    match: /^gpt-5/,
    contextWindow: 400_000,
    maxOutput: 128_000,
    thinking: { efforts: ["minimal", ...EFFORTS], off: "minimal" },
    images: true,
    prices: GPT5,
    source: MODELS,
  },
  {
    id: "gpt-4.1-mini",
    api: "openai",
    prices: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-4.1-nano",
    api: "openai",
    prices: { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-4.1",
    match: /^gpt-4\.1/,
    api: "openai",
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    thinking: false,
    images: true,
    prices: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-4o-mini",
    api: "openai",
    prices: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gpt-4o",
    match: /^gpt-4o/,
    api: "openai",
    contextWindow: 128_000,
    maxOutput: 16_384,
    thinking: false,
    images: true,
    prices: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 },
    source: MODELS,
  },
  { id: "gpt-4-turbo", api: "openai", contextWindow: 128_000, thinking: false, images: true, source: MODELS },
  {
    id: "o4-mini",
    api: "openai",
    images: true,
    prices: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
    source: MODELS,
  },
  // o3-mini and o1-mini read no images.
  {
    id: "o3-mini",
    api: "openai",
    images: false,
    prices: { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 0 },
    source: MODELS,
  },
  { id: "o1-mini", api: "openai", images: false, source: MODELS },
  {
    id: "o3",
    api: "openai",
    images: true,
    prices: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    source: MODELS,
  },
  { id: "o*", match: /^o[134]($|-)/, contextWindow: 200_000, maxOutput: 100_000, thinking: ALWAYS, source: MODELS },
  // Open weights: text only; Groq refuses an image part ("messages[N].content must be a string", issue 41).
  {
    id: "gpt-oss-120b",
    match: /^gpt-oss/,
    contextWindow: 131_072,
    thinking: ALWAYS,
    images: false,
    source: "https://openai.com/index/introducing-gpt-oss/",
  },
  // Other GPT models do not reason.
  { id: "gpt-*", match: /^(gpt-|chatgpt)/, thinking: false, source: MODELS },
];
