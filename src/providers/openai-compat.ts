// Where OpenAI-compatible servers differ from each other, in one table instead of scattered ifs.

/** The quirks of one kind of chat-completions server. */
export interface OpenAICompat {
  /** OpenAI's reasoning models reject `max_tokens`; most other servers only know it. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Whether to ask for usage in the stream (`stream_options.include_usage`). Servers that ignore it are tolerated. */
  streamUsage: boolean;
}

const DEFAULT_COMPAT: OpenAICompat = { maxTokensField: "max_tokens", streamUsage: true };

/** Matched against the base URL, first match wins. */
const COMPAT_BY_URL: Array<{ match: RegExp; compat: Partial<OpenAICompat> }> = [
  { match: /api\.openai\.com/, compat: { maxTokensField: "max_completion_tokens" } },
  // Mistral answers 422 to unknown fields such as stream_options, and sends usage anyway.
  { match: /api\.mistral\.ai/, compat: { streamUsage: false } },
];

export function compatFor(baseUrl: string): OpenAICompat {
  const entry = COMPAT_BY_URL.find((e) => e.match.test(baseUrl));
  return { ...DEFAULT_COMPAT, ...entry?.compat };
}
