// The one home of defaults: the built-in providers, the state folder, and the error a setting
// that cannot work raises. How flags, environment and config.json combine into settings is
// resolve-provider.ts; the file's schema is config-file.ts (both import this module, not the
// other way round).
import { homedir } from "node:os";
import { join } from "node:path";
import type { ApiKind } from "../providers/index.ts";
import type { ThinkingLevel } from "../providers/thinking-levels.ts";

/** A built-in provider: where it lives, where its key comes from, and a sensible model. */
export interface ProviderPreset {
  api: ApiKind;
  baseUrl: string;
  /** Absent for servers that need no key. */
  keyEnv?: string;
  defaultModel: string;
  /**
   * The key goes to this domain's hosts only: with a base URL elsewhere and no --provider, the key
   * does not choose this provider (GOOGLE_API_KEY is often a Maps or Cloud key; red team, issue 51).
   */
  keyOnlyFor?: string;
  /**
   * Signed in with `harness login <name>` instead of a key (providers/sign-in/): the base URL is
   * the service's own and cannot be changed (the tokens go only where they were issued for), and
   * the plan's models are the catalogue's entries of this provider.
   */
  signIn?: true;
  /** The endpoint lists no models harness can read: `harness models` shows the catalogue's entries of this provider. */
  catalogueListing?: true;
}

/**
 * `--provider local`'s model when none is named: Qwen3 4B Instruct 2507 at Q4_K_M (about 2.5 GB),
 * the best tool caller per gigabyte we know of that runs on a laptop CPU (docs/providers.md, "Local model").
 */
export const DEFAULT_LOCAL_MODEL = "hf:unsloth/Qwen3-4B-Instruct-2507-GGUF/Qwen3-4B-Instruct-2507-Q4_K_M.gguf";

export const PRESETS: Record<string, ProviderPreset> = {
  openai: { api: "openai", baseUrl: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", defaultModel: "gpt-5-mini" },
  anthropic: {
    api: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyEnv: "ANTHROPIC_API_KEY",
    defaultModel: "claude-sonnet-4-5",
  },
  openrouter: {
    api: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    keyEnv: "OPENROUTER_API_KEY",
    defaultModel: "anthropic/claude-sonnet-4.5",
  },
  // Google's own API (generateContent), not its OpenAI-compatible layer: thought signatures, thinking
  // config and cached-token usage come whole only there (contract: `--provider gemini`).
  gemini: {
    api: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    keyEnv: "GEMINI_API_KEY",
    defaultModel: "gemini-2.5-flash",
    keyOnlyFor: "googleapis.com",
  },
  ollama: { api: "openai", baseUrl: "http://localhost:11434/v1", defaultModel: "qwen3" },
  local: { api: "local", baseUrl: "", defaultModel: DEFAULT_LOCAL_MODEL },
  // Sign-ins (docs/sign-in.md): the Responses API behind a ChatGPT plan, as Codex CLI uses it, and
  // Copilot's OpenAI-compatible chat completions.
  chatgpt: {
    api: "responses",
    baseUrl: "https://chatgpt.com/backend-api/codex",
    defaultModel: "gpt-5.1-codex",
    signIn: true,
    catalogueListing: true,
  },
  copilot: { api: "openai", baseUrl: "https://api.githubcopilot.com", defaultModel: "gpt-4.1", signIn: true },
};

/** The flags and variables that choose a provider. */
export interface ProviderChoice {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** `--max-tokens`: wins over config.json. */
  maxTokens?: number;
  /** `--api`: the wire API, over the provider's own. */
  api?: ApiKind;
  /** `--thinking`: wins over config.json `thinking`. */
  thinking?: ThinkingLevel;
  /** `--request-timeout`, `--idle-timeout`: seconds, as typed (checked here, like the variables). */
  requestTimeout?: string;
  idleTimeout?: string;
}

/**
 * A setting that cannot work; the CLI prints it and exits 2 when it is a usage error (a bad
 * name, a broken config.json), 1 otherwise (no key: the run cannot authenticate).
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly isUsage: boolean;

  constructor(message: string, options: { isUsage?: boolean } = {}) {
    super(message);
    this.isUsage = options.isUsage ?? false;
  }
}

/** No provider was named and no key is set: the CLI may offer the local model instead. */
export class NoProviderError extends ConfigError {
  override name = "NoProviderError";
}

/** The providers whose key alone chooses them, in the order a set key is looked for. */
export const KEYED_PROVIDERS = ["anthropic", "openai", "openrouter", "gemini"] as const;

/** `ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY`: for messages that say which keys choose a provider. */
export function keyVariableList(): string {
  const names = KEYED_PROVIDERS.map((name) => PRESETS[name].keyEnv as string);
  return `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

export function stateDir(env: NodeJS.ProcessEnv): string {
  return env.HARNESS_HOME || join(homedir(), ".harness");
}
