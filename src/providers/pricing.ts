// What a run costs: the prices of the model catalogue (model-catalogue.ts, with the date and page
// each came from; config.json overrides), the arithmetic, and the one-line summary. Pure functions;
// the CLI picks the prices (config.json first, the catalogue second).
import { addUsage, EMPTY_USAGE, type ModelUsage, type Usage } from "../core/messages.ts";
import { formatCost, formatTokens } from "../shared/helpers.ts";
import type { ModelEntry, Prices } from "./catalogue/model-entry.ts";
import { modelFact } from "./model-catalogue.ts";

const TOKENS_PER_PRICE_UNIT = 1_000_000;
/** Costs are reported to the micro-dollar, which keeps float noise out of JSON. */
const COST_DECIMALS = 6;

/** The catalogue's prices for a model id (config.json's `models` first when given), or undefined when it has none. */
export function lookupPrices(model: string, configured?: readonly ModelEntry[]): Prices | undefined {
  return modelFact({ model, configured }, "prices")?.value;
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
export function pricesFor(
  model: string,
  configured: Prices | undefined,
  entries?: readonly ModelEntry[],
): { prices: Prices; isKnown: boolean } {
  const prices = configured ?? lookupPrices(model, entries);
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
export function sessionPrices(settings: {
  model: string;
  prices?: Prices;
  modelEntries?: readonly ModelEntry[];
}): PriceList {
  return (model) => pricesFor(model, model === settings.model ? settings.prices : undefined, settings.modelEntries);
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
