// What we know about common models without asking their server: the context window, a view of the
// model catalogue (model-catalogue.ts), and the bounds around it.
import { type CatalogueQuery, modelFact } from "./model-catalogue.ts";

/**
 * The smallest context window a person may set (flag, HARNESS_CONTEXT_WINDOW, config.json): the
 * system prompt and tool definitions alone are about 2k tokens, and compaction starts at 80%, so
 * below 4096 no turn fits. 4096 is also the smallest window models are commonly run with.
 */
export const MIN_CONTEXT_WINDOW = 4096;

/** Models the table does not know: small enough for most local servers' defaults. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** The catalogue's context window for a model id (config.json's entries first), or undefined when it has none. */
export function lookupContextWindow(model: string, query: Omit<CatalogueQuery, "model"> = {}): number | undefined {
  return modelFact({ ...query, model }, "contextWindow")?.value;
}
