// What we know about common models without asking their server: the context window.

/**
 * Context windows in tokens, as the vendors documented them in November 2025. Matched against the
 * model id without its vendor prefix (`openai/gpt-4o` → `gpt-4o`, Ollama's `qwen3:8b` as is), lower
 * case, first match wins, so specific patterns come before general ones. Where a family spans
 * sizes, the smaller is listed: underestimating only makes compaction start earlier.
 */
const CONTEXT_WINDOWS: Array<[RegExp, number]> = [
  [/^claude-/, 200_000],
  [/^gpt-5/, 400_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^gpt-oss/, 131_072],
  [/^o[134]($|-)/, 200_000],
  [/^deepseek-(chat|reasoner|v3)/, 128_000],
  [/^deepseek/, 65_536],
  [/^qwen3-coder/, 262_144],
  [/^(qwen3|qwen2\.5)/, 32_768],
  [/^llama-?3[.-]?[123]/, 131_072],
  [/^llama-?3/, 8_192],
  [/^gemini-(1\.5|2|3)/, 1_048_576],
  [/^(mistral-large|mistral-medium|devstral|codestral)/, 131_072],
  [/^glm-4\.[56]/, 131_072],
  [/^kimi-k2/, 131_072],
];

/**
 * Models of the built-in providers, by provider name, as their vendors listed them in November
 * 2025: what the chat's `/model` offers when the endpoint cannot list its own (said so beside it).
 */
export const KNOWN_MODELS: Readonly<Record<string, readonly string[]>> = {
  openai: ["gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "o3", "o4-mini"],
  anthropic: ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"],
  openrouter: [
    "anthropic/claude-sonnet-4.5",
    "anthropic/claude-opus-4.5",
    "openai/gpt-5",
    "openai/gpt-5-mini",
    "google/gemini-2.5-pro",
    "deepseek/deepseek-chat",
    "qwen/qwen3-coder",
    "moonshotai/kimi-k2",
  ],
  ollama: ["qwen3", "qwen3-coder", "gpt-oss:20b", "llama3.1", "deepseek-r1"],
};

/**
 * The smallest context window a person may set (flag, HARNESS_CONTEXT_WINDOW, config.json): the
 * system prompt and tool definitions alone are about 2k tokens, and compaction starts at 80%, so
 * below 4096 no turn fits. 4096 is also the smallest window models are commonly run with.
 */
export const MIN_CONTEXT_WINDOW = 4096;

/** Models the table does not know: small enough for most local servers' defaults. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** The table's context window for a model id, or undefined when it has none. */
export function lookupContextWindow(model: string): number | undefined {
  const id = model.toLowerCase().split("/").pop() ?? "";
  return CONTEXT_WINDOWS.find(([pattern]) => pattern.test(id))?.[1];
}
