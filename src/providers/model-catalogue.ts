// The model catalogue: what harness knows of each model, as data in one place (the entries are in
// catalogue/, one file per vendor, plus the models provider presets list). The context-window,
// price, output-cap, thinking and alias tables of earlier versions are views of it (model-info.ts,
// pricing.ts, the API's request files), and config.json's top-level `models` adds or overrides
// entries (they come first). `harness models --known` prints it.
//
// How an entry is found (docs/models.md says it for users): the id is matched lower case, as given
// and without its router prefix (`openrouter`'s `anthropic/claude-sonnet-4.5` is also
// `claude-sonnet-4.5`). Each fact is looked up on its own, in order: the config's entries, the
// entries of the provider in use, then the built-in ones; the first matching entry that states the
// fact answers. So a family entry (`claude-*`: 200k tokens) and a model's own entry (its prices)
// combine, and a provider preset's entry (a sign-in provider's own list, its smaller window) may
// say only what differs. A fact no entry states is the API's conservative default (its caller's).
import { ANTHROPIC_MODELS } from "./catalogue/anthropic-models.ts";
import { GEMINI_MODELS } from "./catalogue/gemini-models.ts";
import type { ModelEntry, ModelFacts } from "./catalogue/model-entry.ts";
import { OPEN_MODELS } from "./catalogue/open-models.ts";
import { OPENAI_MODELS } from "./catalogue/openai-models.ts";
import { PRESET_LISTINGS } from "./catalogue/preset-listings.ts";

const BUILT_IN: readonly ModelEntry[] = [...ANTHROPIC_MODELS, ...OPENAI_MODELS, ...GEMINI_MODELS, ...OPEN_MODELS];
const PRESET_ENTRIES: readonly ModelEntry[] = PRESET_LISTINGS;

/** What a lookup looks at: the model, the provider in use, and config.json's entries. */
export interface CatalogueQuery {
  model: string;
  provider?: string;
  /** config.json's `models`, which win. */
  configured?: readonly ModelEntry[];
}

/** Whether an entry stands for a model id. */
function entryMatches(entry: ModelEntry, model: string): boolean {
  const full = model.toLowerCase();
  const bare = full.split("/").pop() ?? full;
  const own = entry.id.toLowerCase();
  const test = (id: string) =>
    entry.match ? entry.match.test(id) : id === own || (id.startsWith(own) && /^[-:@]\d/.test(id.slice(own.length)));
  return test(full) || (bare !== full && test(bare));
}

/** The entries that may answer for the query, in the order they are asked. */
function candidates(query: CatalogueQuery): ModelEntry[] {
  const preset = query.provider ? PRESET_ENTRIES.filter((entry) => entry.provider === query.provider) : [];
  return [...(query.configured ?? []), ...preset, ...BUILT_IN].filter((entry) => entryMatches(entry, query.model));
}

/** One fact of a model and the entry that states it, or undefined when no entry does. */
export function modelFact<K extends keyof ModelFacts>(
  query: CatalogueQuery,
  fact: K,
): { value: NonNullable<ModelFacts[K]> | Extract<ModelFacts[K], false>; entry: ModelEntry } | undefined {
  for (const entry of candidates(query)) {
    const value = entry[fact];
    if (value !== undefined) return { value: value as NonNullable<ModelFacts[K]>, entry };
  }
  return undefined;
}

/** The facts an entry may state, in the order `harness models --known` shows them. */
export const CATALOGUE_FACTS = [
  "contextWindow",
  "maxOutput",
  "thinking",
  "images",
  "prices",
  "rules",
  "serverState",
] as const satisfies ReadonlyArray<keyof ModelFacts>;

/** Every fact known of a model, each from the first entry that states it. */
export function describeModel(query: CatalogueQuery): ModelFacts & { sources: string[] } {
  const facts: ModelFacts = {};
  const sources = new Set<string>();
  for (const fact of CATALOGUE_FACTS) {
    const found = modelFact(query, fact);
    if (!found) continue;
    Object.assign(facts, { [fact]: found.value });
    sources.add(found.entry.source);
  }
  return { ...facts, sources: [...sources] };
}

/** The models a provider preset lists of its own (what `/model` offers when the endpoint cannot list), in order. */
export function presetModels(provider: string): string[] {
  return PRESET_ENTRIES.filter((entry) => entry.provider === provider).map((entry) => entry.id);
}

/**
 * The id an alias stands for on a wire API (the alias's variable's value when set), or undefined
 * when the name is no alias there.
 */
export function resolveAlias(
  api: string,
  name: string,
  env: NodeJS.ProcessEnv,
): { id: string; variable?: string } | undefined {
  for (const entry of BUILT_IN) {
    if (entry.api !== api) continue;
    const alias = entry.aliases?.find((candidate) => candidate.name === name);
    if (!alias) continue;
    const named = alias.variable ? env[alias.variable]?.trim() : undefined;
    return named ? { id: named, variable: alias.variable } : { id: entry.id };
  }
  return undefined;
}

/** Every entry, config.json's first, as `harness models --known` lists them. */
export function catalogueEntries(configured: readonly ModelEntry[] = []): readonly ModelEntry[] {
  return [...configured, ...PRESET_ENTRIES, ...BUILT_IN];
}
