// Where OpenAI-compatible servers differ from each other, in one table instead of scattered ifs.
// What each API accepts of a conversation (ids, names, tool counts) is wire-rules.ts, beside it.

/** The quirks of one kind of chat-completions server. */
export interface OpenAICompat {
  /** OpenAI's reasoning models reject `max_tokens`; most other servers only know it. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Whether to ask for usage in the stream (`stream_options.include_usage`). Servers that ignore it are tolerated. */
  streamUsage: boolean;
  /**
   * Whether an assistant message with tool calls carries its reasoning back as `reasoning_content`
   * (an empty one for a reply that had none: another model's, or one written before).
   */
  echoReasoningContent: boolean;
}

const DEFAULT_COMPAT: OpenAICompat = { maxTokensField: "max_tokens", streamUsage: true, echoReasoningContent: false };

/** Matched against the base URL's host, or the provider's name, and the model when one is given; first match wins. */
const COMPAT_BY_SERVER: Array<{ host: RegExp; name?: RegExp; model?: RegExp; compat: Partial<OpenAICompat> }> = [
  { host: /(^|\.)openai\.com$/, compat: { maxTokensField: "max_completion_tokens" } },
  // Mistral answers 422 to unknown fields such as stream_options, and sends usage anyway.
  { host: /(^|\.)mistral\.ai$/, name: /^mistral$/, compat: { streamUsage: false } },
  // "Missing `reasoning_content` field in the assistant message at message index 2. For more
  // information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
  // (abhigyanpatwari/GitNexus#43; "The `reasoning_content` in the thinking mode must be passed back
  // to the API.", JohnnyZ93/oai-compatible-copilot#215).
  { host: /(^|\.)deepseek\.com$/, name: /^deepseek$/, compat: { echoReasoningContent: true } },
  // "thinking is enabled but reasoning_content is missing in assistant tool call message at index 2"
  // (mastra-ai/mastra#12592, MoonshotAI/kimi-agent-sdk#169); Moonshot's guide says to keep it:
  // https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model#multi-step-tool-call
  { host: /(^|\.)moonshot\.(ai|cn)$/, name: /^(moonshot|kimi)$/, compat: { echoReasoningContent: true } },
  // Kimi behind OpenRouter refuses the same way ("thinking is enabled but reasoning_content is
  // missing in assistant tool call message at index 2", earendil-works/pi#987).
  {
    host: /(^|\.)openrouter\.ai$/,
    name: /^openrouter$/,
    model: /kimi-k2/,
    compat: { echoReasoningContent: true },
  },
];

export function compatFor(baseUrl: string, name = "", model = ""): OpenAICompat {
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "";
  const entry = COMPAT_BY_SERVER.find(
    (e) => (e.host.test(host) || e.name?.test(name)) && (e.model === undefined || e.model.test(model)),
  );
  return { ...DEFAULT_COMPAT, ...entry?.compat };
}
