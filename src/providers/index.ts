// What every provider is built from. Types only: the adapters import them, and createProvider
// (create-provider.ts), which imports the adapters, lives apart so no import runs in a circle.
import type { CallLimits } from "./call-limits.ts";
import type { Prices } from "./pricing.ts";
import type { ThinkingLevel } from "./thinking.ts";
import type { ApiKind } from "./wire-apis.ts";

export type { ApiKind } from "./wire-apis.ts";

/** Everything needed to build a provider; config resolution fills it in. */
export interface ProviderSettings extends CallLimits {
  /** The name the user picked (`openai`, `openrouter`, a custom provider...). */
  name: string;
  api: ApiKind;
  model: string;
  baseUrl: string;
  apiKey?: string;
  keyEnv?: string;
  headers?: Record<string, string>;
  /** How much the model should think (thinking.ts maps it per API); absent = the server's default. */
  thinking?: ThinkingLevel;
  /**
   * Whether the server is the user's own (config.json `"local"`), so it may be asked its context
   * window (llama.cpp, Ollama); unset, its URL decides (server-locality.ts).
   */
  local?: boolean;
  /** Where servers' answers about their window are kept between runs (`$HARNESS_HOME/cache/context-windows.json`). */
  windowCacheFile?: string;
  /** Configured context window (config.json); wins over the server's word and the table. */
  contextWindow?: number;
  /** Configured output cap (config.json); `--max-tokens` wins. */
  maxTokens?: number;
  /** Configured prices (config.json); the built-in table is the fallback. */
  prices?: Prices;
  /** Anthropic's server-side web search, on with at most this many searches per request (config.json `webSearch`). */
  webSearch?: { maxUses: number };
  /** Threads `--provider local` computes on (config.json `providers.local.threads`, `HARNESS_LOCAL_THREADS`); absent: the math cores. */
  threads?: number;
  /** Where `--provider local` keeps downloaded models (`$HARNESS_HOME/models`). */
  modelsDir?: string;
}
