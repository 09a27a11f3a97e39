// Open-weight and other vendors' models, served by their vendors and by routers and servers of
// one's own (OpenRouter, vLLM, Ollama), as their vendors documented them in November 2025. Where a
// family spans sizes the smaller window is listed: underestimating only makes compaction start
// earlier. `images: false` where the model reads no images; unknown ones are sent images.
import type { ModelEntry } from "./model-entry.ts";

const DEEPSEEK = "https://api-docs.deepseek.com/quick_start/pricing";
const MISTRAL = "https://docs.mistral.ai/getting-started/models/models_overview/";

export const OPEN_MODELS: readonly ModelEntry[] = [
  {
    id: "deepseek-chat",
    match: /^deepseek-(chat|reasoner|v3)/,
    contextWindow: 128_000,
    images: false,
    prices: { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 },
    source: DEEPSEEK,
  },
  { id: "deepseek-*", match: /^deepseek/, contextWindow: 65_536, source: DEEPSEEK },
  {
    id: "qwen3-coder",
    contextWindow: 262_144,
    images: false,
    source: "https://qwen.ai/blog?id=qwen3-coder",
  },
  { id: "qwen3", match: /^(qwen3|qwen2\.5)/, contextWindow: 32_768, source: "https://qwenlm.github.io/blog/qwen3/" },
  {
    id: "llama3.1",
    match: /^llama-?3[.-]?[123]/,
    contextWindow: 131_072,
    source: "https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/",
  },
  { id: "llama3", match: /^llama-?3/, contextWindow: 8192, source: "https://www.llama.com/models/llama-3/" },
  // Mistral's models refuse a user message right after tool results, on La Plateforme and behind
  // servers that keep their template's check: {"object":"error","message":"Unexpected role 'user'
  // after role 'tool'","type":"invalid_request_message_order","param":null,"code":"3230"}
  // (avante-corp/avante.nvim#2562; vLLM: mistralai/mistral-vibe#578; NIM: NousResearch/hermes-agent#20154).
  { id: "codestral", match: /^(codestral|devstral)/, images: false, source: MISTRAL },
  {
    id: "mistral-large",
    match: /^(mistral-large|mistral-medium|devstral|codestral)/,
    contextWindow: 131_072,
    source: MISTRAL,
  },
  {
    id: "mistral-*",
    match: /^(mistral|devstral|codestral|magistral|ministral|pixtral|open-mistral|open-mixtral|mixtral)/,
    rules: { assistantAfterTools: true },
    source: MISTRAL,
  },
  {
    id: "glm-4.6",
    match: /^glm-4\.[56]($|-\d|:)/,
    contextWindow: 131_072,
    images: false,
    source: "https://docs.z.ai/guides/llm/glm-4.6",
  },
  {
    id: "kimi-k2",
    match: /^kimi-k2/,
    contextWindow: 131_072,
    images: false,
    source: "https://platform.moonshot.ai/docs/introduction",
  },
];
