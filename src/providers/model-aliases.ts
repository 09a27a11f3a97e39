// Short model names users already type in their vendors' own tools, each to a current id.
//
// *Note for the model catalogue* (issue 41, "every model as data"): this table is a stopgap that
// the catalogue should absorb: an alias becomes a field of the entry it names, and this module
// goes. Until then it is data only, read through the wire API records (wire-apis.ts `aliases`).

/** One alias: the id it stands for, and the variable that may name another id for it. */
export interface ModelAlias {
  id: string;
  /** A variable whose value, when set, is the id instead (a gateway's own name for the model). */
  variable?: string;
}

/**
 * Claude Code's `--model sonnet|opus|haiku`, to the current model of each family, and its
 * ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU}_MODEL variables, which gateway users set to the gateway's
 * names (https://docs.claude.com/en/docs/claude-code/model-config: "Model aliases", "Environment
 * variables"); ids from https://docs.claude.com/en/docs/about-claude/models/overview.
 */
export const ANTHROPIC_MODEL_ALIASES: Readonly<Record<string, ModelAlias>> = {
  sonnet: { id: "claude-sonnet-4-5", variable: "ANTHROPIC_DEFAULT_SONNET_MODEL" },
  opus: { id: "claude-opus-4-5", variable: "ANTHROPIC_DEFAULT_OPUS_MODEL" },
  haiku: { id: "claude-haiku-4-5", variable: "ANTHROPIC_DEFAULT_HAIKU_MODEL" },
};

/**
 * Gemini CLI's `--model pro|flash|flash-lite` (google-gemini/gemini-cli
 * packages/core/src/config/models.ts), to the stable 2.5 models
 * (https://ai.google.dev/gemini-api/docs/models).
 */
export const GEMINI_MODEL_ALIASES: Readonly<Record<string, ModelAlias>> = {
  pro: { id: "gemini-2.5-pro" },
  flash: { id: "gemini-2.5-flash" },
  "flash-lite": { id: "gemini-2.5-flash-lite" },
};

// *Decision*: none for OpenAI's APIs. Codex and the OpenAI SDK take no short names (`gpt-5` is
// itself OpenAI's alias of a dated snapshot), and OpenAI-compatible servers name models their own way.

/** The id `model` stands for among `aliases` (the variable's value when set), or undefined when it is no alias. */
export function resolveAlias(
  aliases: Readonly<Record<string, ModelAlias>> | undefined,
  model: string,
  env: NodeJS.ProcessEnv,
): { id: string; variable?: string } | undefined {
  const alias = aliases && Object.hasOwn(aliases, model) ? aliases[model] : undefined;
  if (!alias) return undefined;
  const named = alias.variable ? env[alias.variable]?.trim() : undefined;
  return named ? { id: named, variable: alias.variable } : { id: alias.id };
}
