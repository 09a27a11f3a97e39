// Per-model chat settings for the in-process model: how to sample, and whether its tool calls go
// through its own chat template. Qwen's sampling used to be applied to every model (issue 37).

/** What generation is sampled with (node-llama-cpp's option names). */
export interface Sampling {
  temperature: number;
  topP?: number;
  topK?: number;
  minP?: number;
}

/** A model family: how to know it, and the sampling its makers publish for chat. */
interface Family {
  name: string;
  /** Matched against `general.architecture` and `general.name` (and the file name). */
  matches: RegExp;
  sampling: Sampling;
}

/**
 * Each family's recommended chat sampling, from its makers (model card or generation_config.json).
 * Greedy decoding (temperature 0) makes small models loop, so none of them uses it.
 */
const FAMILIES: Family[] = [
  // Qwen3 Instruct 2507 model card, "Best Practices": temperature 0.7, top_p 0.8, top_k 20, min_p 0.
  // Qwen2.5 Instruct's generation_config.json says the same.
  { name: "Qwen", matches: /qwen/i, sampling: { temperature: 0.7, topP: 0.8, topK: 20, minP: 0 } },
  // Gemma 3 (Google's generation_config.json for gemma-3-*-it): temperature 1.0, top_k 64, top_p 0.95.
  { name: "Gemma", matches: /gemma/i, sampling: { temperature: 1.0, topP: 0.95, topK: 64 } },
  // gpt-oss model card: temperature 1.0, top_p 1.0.
  { name: "gpt-oss", matches: /gpt-?oss/i, sampling: { temperature: 1.0, topP: 1.0 } },
  // Mistral Small 3.x / Devstral model cards: a low temperature, 0.15.
  { name: "Mistral", matches: /mistral|devstral|magistral/i, sampling: { temperature: 0.15 } },
  // Llama 3.x Instruct generation_config.json: temperature 0.6, top_p 0.9.
  { name: "Llama", matches: /llama/i, sampling: { temperature: 0.6, topP: 0.9 } },
];

/** llama.cpp's own defaults (llama-server, llama-cli), for a family we have no word for. */
const LLAMA_CPP_DEFAULTS: Sampling = { temperature: 0.8, topP: 0.95, topK: 40, minP: 0.05 };

/** The GGUF metadata keys some converters write from generation_config.json; they win over the table. */
const METADATA_KEYS = {
  temperature: "temp",
  topP: "top_p",
  topK: "top_k",
  minP: "min_p",
} as const;

/** Where the sampling came from, for the load line. */
export interface ChosenSampling {
  sampling: Sampling;
  source: string;
}

/**
 * The model's sampling: what its file says (`general.sampling.*`), else its family's from the
 * table, else llama.cpp's defaults. `names` are the architecture, the model's name and the file name.
 */
export function chooseSampling(names: string[], fileSampling: Record<string, unknown> | undefined): ChosenSampling {
  const fromFile: Partial<Sampling> = {};
  for (const [option, key] of Object.entries(METADATA_KEYS) as Array<[keyof Sampling, string]>) {
    const value = fileSampling?.[key];
    if (typeof value === "number" && Number.isFinite(value)) fromFile[option] = value;
  }
  if (fromFile.temperature !== undefined) return { sampling: fromFile as Sampling, source: "the model file" };
  const family = FAMILIES.find((entry) => names.some((name) => entry.matches.test(name)));
  if (family) return { sampling: family.sampling, source: `${family.name}'s recommendation` };
  return { sampling: LLAMA_CPP_DEFAULTS, source: "llama.cpp's defaults" };
}

/**
 * node-llama-cpp's chat wrappers that write tool calls in the model's own trained syntax; the
 * others (Gemma 2 and 3, Llama 2, ChatML, Alpaca, Falcon, General) have no tool section and
 * fall back to a generic syntax described in the system prompt, which small models follow less well.
 */
const NATIVE_TOOL_WRAPPERS = new Set([
  "Qwen",
  "Llama 3.1",
  "Llama 3.2 lightweight",
  "Mistral",
  "Functionary",
  "Harmony",
  "DeepSeek",
  "Seed",
  "Gemma 4",
]);

/** How tool calls are spelled for this wrapper, for the load line. */
export function describeToolSyntax(wrapperName: string, isJinjaWithTools: boolean): string {
  if (isJinjaWithTools || NATIVE_TOOL_WRAPPERS.has(wrapperName)) return "tool calls in the model's own template";
  return `tool calls in a generic syntax (the ${wrapperName} template has no tool section)`;
}
