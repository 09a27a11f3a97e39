// The one home of defaults, and how flags, environment and built-ins combine into settings.
import { homedir } from "node:os";
import { join } from "node:path";
import type { ApiKind, ProviderSettings } from "./providers/index.ts";

/** A built-in provider: where it lives, where its key comes from, and a sensible model. */
export interface ProviderPreset {
  api: ApiKind;
  baseUrl: string;
  /** Absent for servers that need no key. */
  keyEnv?: string;
  defaultModel: string;
}

export const PRESETS: Record<string, ProviderPreset> = {
  openai: { api: "openai", baseUrl: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", defaultModel: "gpt-5-mini" },
  anthropic: { api: "anthropic", baseUrl: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY", defaultModel: "claude-sonnet-4-5" },
  openrouter: { api: "openai", baseUrl: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", defaultModel: "anthropic/claude-sonnet-4.5" },
  ollama: { api: "openai", baseUrl: "http://localhost:11434/v1", defaultModel: "qwen3" },
};

/** Which provider to pick when none is named: the first whose key is set. */
const KEY_ORDER = ["anthropic", "openai", "openrouter"];

/** The flags and variables that choose a provider. */
export interface ProviderChoice {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** A setting that cannot work; the CLI prints it and exits with the usage code. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export function stateDir(env: NodeJS.ProcessEnv): string {
  return env.HARNESS_HOME || join(homedir(), ".harness");
}

/**
 * Resolves provider settings. Precedence: flags, then environment, then built-in defaults.
 * With no key anywhere the error names the exact variable to set.
 */
export function resolveProvider(flags: ProviderChoice, env: NodeJS.ProcessEnv): ProviderSettings {
  const baseUrl = flags.baseUrl ?? env.HARNESS_BASE_URL;
  const name = flags.provider ?? env.HARNESS_PROVIDER ?? guessProvider(env, baseUrl);
  const preset = PRESETS[name];
  if (!preset) throw new ConfigError(`unknown provider "${name}"; choose one of: ${Object.keys(PRESETS).join(", ")}`);

  const apiKey = env.HARNESS_API_KEY || (preset.keyEnv ? env[preset.keyEnv] : undefined) || undefined;
  // A custom --base-url may be a local server that needs no key; the official endpoints always do.
  if (!apiKey && preset.keyEnv && !baseUrl) {
    throw new ConfigError(`no API key for ${name}: set ${preset.keyEnv} (or HARNESS_API_KEY), or choose another --provider`);
  }
  return {
    name,
    api: preset.api,
    model: flags.model ?? env.HARNESS_MODEL ?? preset.defaultModel,
    baseUrl: (baseUrl ?? preset.baseUrl).replace(/\/+$/, ""),
    apiKey,
    keyEnv: preset.keyEnv,
  };
}

function guessProvider(env: NodeJS.ProcessEnv, baseUrl: string | undefined): string {
  if (baseUrl) return /anthropic/.test(baseUrl) ? "anthropic" : "openai";
  const withKey = KEY_ORDER.find((name) => env[PRESETS[name].keyEnv as string]);
  if (withKey) return withKey;
  if (env.HARNESS_API_KEY) return "openai";
  throw new ConfigError(
    "no provider configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY, or use --provider ollama for a local Ollama server, or --base-url for any OpenAI-compatible server",
  );
}
