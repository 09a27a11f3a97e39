// Google's Gemini models, as https://ai.google.dev/gemini-api/docs/models (windows, output limits,
// inputs), https://ai.google.dev/gemini-api/docs/thinking (levels and budgets) and
// https://ai.google.dev/gemini-api/docs/pricing (prompts up to 200k tokens; longer ones cost more)
// gave them in November 2025. Gemini 3 takes a thinking level (Pro: low or high; Flash also minimal
// and medium) and cannot stop thinking, though Flash's `minimal` comes close; 2.5 takes a budget, 0
// turns Flash's off, Pro's cannot be.
import type { ModelEntry } from "./model-entry.ts";

const MODELS = "https://ai.google.dev/gemini-api/docs/models";

export const GEMINI_MODELS: readonly ModelEntry[] = [
  {
    id: "gemini-3-pro-preview",
    match: /^gemini-3(\.\d+)?-pro/,
    api: "gemini",
    thinking: { efforts: ["low", "high"], off: null },
    prices: { input: 2, output: 12, cacheRead: 0.2, cacheWrite: 0 },
    source: MODELS,
  },
  {
    id: "gemini-3-flash-preview",
    match: /^gemini-3(\.\d+)?-flash/,
    api: "gemini",
    thinking: { efforts: ["minimal", "low", "medium", "high"], off: "minimal" },
    source: MODELS,
  },
  {
    id: "gemini-2.5-pro",
    api: "gemini",
    thinking: { off: null },
    prices: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    aliases: [{ name: "pro" }],
    source: MODELS,
  },
  {
    id: "gemini-2.5-flash-lite",
    api: "gemini",
    thinking: { off: 0 },
    prices: { input: 0.1, output: 0.4, cacheRead: 0.01, cacheWrite: 0 },
    aliases: [{ name: "flash-lite" }],
    source: MODELS,
  },
  {
    id: "gemini-2.5-flash",
    match: /^gemini-2\.5-flash($|-preview|-\d)/,
    api: "gemini",
    thinking: { off: 0 },
    prices: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
    // Gemini CLI's `--model pro|flash|flash-lite` (google-gemini/gemini-cli packages/core/src/config/models.ts).
    aliases: [{ name: "flash" }],
    source: MODELS,
  },
  {
    id: "gemini-*",
    match: /^gemini-(1\.5|2|3)/,
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    images: true,
    rules: { geminiSchema: true },
    source: MODELS,
  },
];
