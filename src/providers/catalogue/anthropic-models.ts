// Anthropic's models, as https://docs.claude.com/en/docs/about-claude/models/overview (windows,
// output limits, snapshots) and https://docs.claude.com/en/docs/about-claude/pricing (prices, with
// the 5-minute cache write at 1.25 × input) gave them in November 2025. Extended thinking takes a
// token budget on Claude 3.7 and 4.x only; Claude 3 and 3.5 refuse it ("'claude-3-5-sonnet-20241022'
// does not support thinking.", anthropics/claude-code#2245, #2507).
import type { ModelEntry } from "./model-entry.ts";

const MODELS = "https://docs.claude.com/en/docs/about-claude/models/overview";
/** A budget; off is nothing sent (the model thinks only when asked). */
const BUDGET = { off: "omit" } as const;
/** Claude Code's `--model sonnet|opus|haiku` and the variables gateway users set for them (https://docs.claude.com/en/docs/claude-code/model-config). */
const alias = (name: string) => [{ name, variable: `ANTHROPIC_DEFAULT_${name.toUpperCase()}_MODEL` }];

export const ANTHROPIC_MODELS: readonly ModelEntry[] = [
  {
    id: "claude-opus-4-5",
    match: /^claude-opus-4[-.][5-9]/,
    api: "anthropic",
    maxOutput: 64_000,
    thinking: BUDGET,
    prices: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    aliases: alias("opus"),
    source: MODELS,
  },
  {
    id: "claude-opus-4-1",
    match: /^claude-opus-4/,
    api: "anthropic",
    maxOutput: 32_000,
    thinking: BUDGET,
    prices: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    source: MODELS,
  },
  {
    id: "claude-sonnet-4-5",
    match: /^claude-sonnet-4/,
    api: "anthropic",
    maxOutput: 64_000,
    thinking: BUDGET,
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    aliases: alias("sonnet"),
    source: MODELS,
  },
  {
    id: "claude-haiku-4-5",
    match: /^claude-haiku-4/,
    api: "anthropic",
    maxOutput: 64_000,
    thinking: BUDGET,
    prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    aliases: alias("haiku"),
    source: MODELS,
  },
  {
    id: "claude-3-7-sonnet",
    match: /^claude-3[-.]7-sonnet/,
    api: "anthropic",
    maxOutput: 64_000,
    thinking: BUDGET,
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    source: MODELS,
  },
  {
    id: "claude-3-5-sonnet",
    match: /^claude-3[-.]5-sonnet/,
    api: "anthropic",
    maxOutput: 8192,
    thinking: false,
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    source: MODELS,
  },
  {
    id: "claude-3-5-haiku",
    match: /^claude-3[-.]5-haiku/,
    api: "anthropic",
    maxOutput: 8192,
    thinking: false,
    prices: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
    source: MODELS,
  },
  {
    id: "claude-3-opus",
    match: /^claude-3-opus/,
    api: "anthropic",
    maxOutput: 4096,
    thinking: false,
    prices: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    source: MODELS,
  },
  {
    id: "claude-3-haiku",
    match: /^claude-3-haiku/,
    api: "anthropic",
    maxOutput: 4096,
    thinking: false,
    prices: { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
    source: MODELS,
  },
  {
    id: "claude-3-sonnet",
    match: /^claude-3-sonnet/,
    api: "anthropic",
    maxOutput: 4096,
    thinking: false,
    source: MODELS,
  },
  // Message threads (beta message-threads-2026-08-12): Claude 4 models and later. The "Message
  // threads" page of Claude's platform docs lists them; that page is not in our docs corpus, so
  // the range follows harness issue 53, which cites it, and the source is the SDK's documentation.
  {
    id: "claude-4*",
    match: /^claude-(?:(?:opus|sonnet|haiku)-)?(?:[4-9]|\d\d)(?:\b|[-.])/,
    api: "anthropic",
    serverState: ["anthropic"],
    source:
      "https://rubydoc.info/github/anthropics/anthropic-sdk-ruby/main/Anthropic/Helpers/Threads/BetaMessageThread",
  },
  // Every Claude: a 200k window, and images (https://docs.claude.com/en/docs/build-with-claude/vision).
  { id: "claude-*", match: /^claude-/, api: "anthropic", contextWindow: 200_000, images: true, source: MODELS },
];
