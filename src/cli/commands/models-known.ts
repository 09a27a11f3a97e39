// `harness models --known`: what the model catalogue (providers/model-catalogue.ts) knows, one line
// per entry, config.json's first; with `--model`, every fact of that one model and where each
// came from, or that it is unknown and gets its API's defaults.
import type { ModelEntry, ModelFacts } from "../../providers/catalogue/model-entry.ts";
import { CATALOGUE_FACTS, catalogueEntries, describeModel, modelFact } from "../../providers/model-catalogue.ts";
import { formatTokens } from "../../shared/helpers.ts";

/** The lines for every entry. */
export function knownModelLines(configured: readonly ModelEntry[]): string[] {
  return catalogueEntries(configured).map((entry) => {
    // A family entry (`claude-*`) shows what it states; a model's, all that is known of it.
    const {
      id: _id,
      match: _match,
      api: _api,
      provider: _provider,
      source: _source,
      aliases: _aliases,
      ...own
    } = entry;
    const facts = { ...describeModel({ model: entry.id, provider: entry.provider, configured }), ...own };
    const where = [entry.api ? `api ${entry.api}` : "", entry.provider ? `listed by ${entry.provider}` : ""];
    const aliases = entry.aliases?.length ? `alias ${entry.aliases.map((alias) => alias.name).join(", ")}` : "";
    return [entry.id, ...where, ...factWords(facts), aliases, `(${entry.source})`].filter(Boolean).join("  ");
  });
}

/** The lines for one model: each fact, and the entry it came from. */
export function oneModelLines(model: string, provider: string, configured: readonly ModelEntry[]): string[] {
  const query = { model, provider, configured };
  const lines = CATALOGUE_FACTS.flatMap((fact) => {
    const found = modelFact(query, fact);
    if (!found) return [];
    const words = factWords({ [fact]: found.value } as ModelFacts).join("  ");
    return [`${words}  (${found.entry.id}: ${found.entry.source})`];
  });
  if (lines.length === 0)
    return [`${model}: not in the catalogue; its API's defaults apply (add it to config.json "models")`];
  return [`${model}:`, ...lines.map((line) => `  ${line}`)];
}

function factWords(facts: ModelFacts): string[] {
  const words: string[] = [];
  if (facts.contextWindow) words.push(`window ${formatTokens(facts.contextWindow)}`);
  if (facts.maxOutput) words.push(`output ${formatTokens(facts.maxOutput)}`);
  if (facts.thinking === false) words.push("no thinking");
  else if (facts.thinking) {
    const takes = facts.thinking.efforts ? facts.thinking.efforts.join("/") : "budget";
    const off =
      facts.thinking.off === null
        ? "cannot be off"
        : facts.thinking.off === "omit"
          ? "off: not sent"
          : `off: ${facts.thinking.off}`;
    words.push(`thinking ${takes} (${off})`);
  }
  if (facts.images !== undefined) words.push(facts.images ? "images" : "text only");
  if (facts.prices) words.push(`$${facts.prices.input}/$${facts.prices.output} per M`);
  if (facts.rules?.assistantAfterTools) words.push("assistant after tool results");
  if (facts.rules?.geminiSchema) words.push("Gemini's tool schemas");
  if (facts.serverState?.length) words.push(`server-side state on ${facts.serverState.join(", ")}`);
  return words;
}
