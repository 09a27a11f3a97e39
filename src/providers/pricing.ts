// What a run costs: a price table for common models, the arithmetic, and the one-line summary.
// Pure functions; the CLI picks the prices (config.json first, this table second).
import { addUsage, EMPTY_USAGE, type ModelUsage, type Usage } from "../core/messages.ts";
import { formatCost, formatTokens } from "../shared/helpers.ts";

/** USD per million tokens. `input` is uncached input; cache reads and writes have their own rates. */
export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * List prices in USD per million tokens, as the vendors' pricing pages gave them in November 2025
 * (check them; config.json `providers.<name>.prices` overrides). Matched against the model id
 * without its vendor prefix (`anthropic/claude-sonnet-4.5` → `claude-sonnet-4.5`), lower case,
 * first match wins, so specific patterns come before general ones. Anthropic cache writes are the
 * 5-minute rate (1.25 × input); OpenAI and DeepSeek charge nothing extra for writing the cache.
 */
const PRICE_TABLE: Array<[RegExp, Prices]> = [
  [/^claude-opus-4[-.][5-9]/, { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
  [/^claude-(opus-4|3-opus)/, { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  [/^claude-(sonnet-4|3[-.][57]-sonnet)/, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  [/^claude-haiku-4/, { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  [/^claude-3[-.]5-haiku/, { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
  [/^claude-3-haiku/, { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 }],
  [/^gpt-5(\.1)?-mini/, { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 }],
  [/^gpt-5(\.1)?-nano/, { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 }],
  [/^gpt-5-pro/, { input: 15, output: 120, cacheRead: 15, cacheWrite: 0 }],
  [/^gpt-5(\.1)?($|[-:])/, { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }],
  [/^gpt-4\.1-mini/, { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 }],
  [/^gpt-4\.1-nano/, { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0 }],
  [/^gpt-4\.1/, { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
  [/^gpt-4o-mini/, { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 }],
  [/^gpt-4o/, { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 }],
  [/^o4-mini/, { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 }],
  [/^o3-mini/, { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 0 }],
  [/^o3($|-)/, { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
  [/^deepseek-(chat|reasoner)/, { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 }],
  [/^gemini-2\.5-pro/, { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }],
  [/^gemini-2\.5-flash($|-preview)/, { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 }],
  // Prompts up to 200k tokens (https://ai.google.dev/gemini-api/docs/pricing); longer ones cost more.
  [/^gemini-3-pro/, { input: 2, output: 12, cacheRead: 0.2, cacheWrite: 0 }],
];

const TOKENS_PER_PRICE_UNIT = 1_000_000;
/** Costs are reported to the micro-dollar, which keeps float noise out of JSON. */
const COST_DECIMALS = 6;

/** The table's prices for a model id, or undefined when it has none. */
export function lookupPrices(model: string): Prices | undefined {
  const id = model.toLowerCase().split("/").pop() ?? "";
  return PRICE_TABLE.find(([pattern]) => pattern.test(id))?.[1];
}

/** USD for the given token counts. */
export function costOf(usage: Usage, prices: Prices): number {
  const micro =
    usage.input * prices.input +
    usage.output * prices.output +
    usage.cacheRead * prices.cacheRead +
    usage.cacheWrite * prices.cacheWrite;
  return Number((micro / TOKENS_PER_PRICE_UNIT).toFixed(COST_DECIMALS));
}

/** The prices a run uses: the configured ones, else the table's; a model with neither counts as free. */
export function pricesFor(model: string, configured: Prices | undefined): { prices: Prices; isKnown: boolean } {
  const prices = configured ?? lookupPrices(model);
  return prices
    ? { prices, isKnown: true }
    : { prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, isKnown: false };
}

/** Each model's prices as a session finds them (see `sessionPrices`). */
export type PriceList = (model: string) => { prices: Prices; isKnown: boolean };

/**
 * A session's prices: config.json's (the provider's or the model's entry) for the session's own
 * model, the table's for any other, such as a named subagent's `model` or an earlier `/model`.
 */
export function sessionPrices(settings: { model: string; prices?: Prices }): PriceList {
  return (model) => pricesFor(model, model === settings.model ? settings.prices : undefined);
}

/** USD for tokens spent on several models, each at its own prices; `unpriced` names those counted as free. */
export function costOfSpent(spent: readonly ModelUsage[], priceList: PriceList): { cost: number; unpriced: string[] } {
  let cost = 0;
  const unpriced: string[] = [];
  for (const { model, usage } of spent) {
    const priced = priceList(model);
    if (!priced.isKnown) unpriced.push(model);
    cost += costOf(usage, priced.prices);
  }
  return { cost: Number(cost.toFixed(COST_DECIMALS)), unpriced };
}

/** The warning for a model without a price; shown once per run. */
export function unknownPriceWarning(model: string): string {
  return `no price known for model "${model}": counted as free; set its prices in config.json`;
}

/**
 * One line for people: `tokens: 1.2k in (800 cached) · 350 out · $0.0042`. "in" counts every
 * input token, cached ones included; the parenthesis says how many were read from or written to
 * the cache. `prices` are the configured ones; the table is the fallback. Chat's `/cost` and the
 * end of a one-shot run both print this.
 */
export function formatUsageAndCost(usage: Usage, model: string, prices?: Prices): string {
  return formatSpent([{ model, usage }], (name) => pricesFor(name, prices));
}

/** `formatUsageAndCost` for tokens spent on several models (a run's subagents'), each priced at its own. */
export function formatSpent(spent: readonly ModelUsage[], priceList: PriceList): string {
  const usage = spent.reduce((total, entry) => addUsage(total, entry.usage), EMPTY_USAGE);
  const totalIn = usage.input + usage.cacheRead + usage.cacheWrite;
  const cacheNotes = [
    usage.cacheRead ? `${formatTokens(usage.cacheRead)} cached` : "",
    usage.cacheWrite ? `${formatTokens(usage.cacheWrite)} to cache` : "",
  ].filter(Boolean);
  const input = `${formatTokens(totalIn)} in${cacheNotes.length ? ` (${cacheNotes.join(", ")})` : ""}`;
  const { cost, unpriced } = costOfSpent(spent, priceList);
  const warnings = unpriced.map((model) => ` (${unknownPriceWarning(model)})`).join("");
  return `tokens: ${input} · ${formatTokens(usage.output)} out · ${formatCost(cost)}${warnings}`;
}
