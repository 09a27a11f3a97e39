// What an adapter is built from: a provider's settings without the choice of wire API, which the
// record that loads the adapter (wire-apis.ts) already knows. Types only, and a leaf of the
// providers: the adapters import it, not index.ts, whose `api` names every API by the record.
import type { CallLimits } from "./call-limits.ts";
import type { ModelEntry, Prices } from "./catalogue/model-entry.ts";
import type { ThinkingLevel } from "./thinking-levels.ts";

export interface AdapterSettings extends CallLimits {
  /** The name the user picked (`openai`, `openrouter`, a custom provider...). */
  name: string;
  /**
   * Which API (ProviderSettings types it by the records); an adapter knows its own and reads it
   * not. Here so that a provider's whole settings are an adapter's settings too.
   */
  api?: string;
  model: string;
  baseUrl: string;
  apiKey?: string;
  keyEnv?: string;
  headers?: Record<string, string>;
  /** How much the model should think (each API's record plans it); absent = the server's default. */
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
  /** Configured prices (config.json); the catalogue is the fallback. */
  prices?: Prices;
  /** config.json's `models`: catalogue entries that come before the built-in ones (model-catalogue.ts). */
  modelEntries?: readonly ModelEntry[];
  /** Anthropic's server-side web search, on with at most this many searches per request (config.json `webSearch`). */
  webSearch?: { maxUses: number };
  /**
   * Keep the conversation on the API's side and send only what is new (Anthropic's message
   * threads), decided by resolve-provider.ts from the endpoint, the model and the settings.
   */
  serverState?: boolean;
  /** Threads `--provider local` computes on (config.json `providers.local.threads`, `HARNESS_LOCAL_THREADS`); absent: the math cores. */
  threads?: number;
  /** Where `--provider local` keeps downloaded models (`$HARNESS_HOME/models`). */
  modelsDir?: string;
  /**
   * A sign-in provider (`chatgpt`, `copilot`: sign-in/): its credentials are read from the store
   * in `signInHome` and put on each request when it leaves (sign-in/sign-in-headers.ts), never here.
   */
  signIn?: string;
  signInHome?: string;
}
