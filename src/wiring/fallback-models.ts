// The fallback models (`--fallback-model`, config.json `fallbackModels`) as provider settings,
// resolved when the session starts, so a mistyped entry is said before anything runs.
import type { ProviderSettings } from "../providers/index.ts";
import type { HarnessConfig } from "./config-file.ts";
import { ConfigError, PRESETS, type ProviderChoice } from "./defaults.ts";
import { resolveProvider } from "./resolve-provider.ts";

/**
 * Variables that choose the session's own provider: they are not another provider's. The key
 * above all: HARNESS_API_KEY is the key of the provider in use, and sent to another vendor it
 * would give that vendor the key.
 */
const OWN_PROVIDER_VARIABLES = ["HARNESS_API_KEY", "HARNESS_BASE_URL", "HARNESS_MODEL", "HARNESS_PROVIDER"];

/**
 * Each entry, `[provider:]model`, as settings. `provider:` counts only when it names a provider
 * (a preset or one of config.json's `providers`): model ids hold colons too (`llama3:8b`, `x/y:free`).
 * An entry of the session's own provider keeps its flags (base URL, API); another provider's is
 * resolved as `--provider p --model m` would be, with the flags that are not about the provider
 * (thinking, output limit, timeouts). Throws ConfigError naming the entry.
 */
export function fallbackSettings(
  entries: readonly string[],
  primary: ProviderSettings,
  choice: ProviderChoice,
  env: NodeJS.ProcessEnv,
  config: HarnessConfig,
): ProviderSettings[] {
  return entries.map((entry) => {
    const colon = entry.indexOf(":");
    const named = colon > 0 ? entry.slice(0, colon) : undefined;
    const isProvider = named !== undefined && (named in PRESETS || named in (config.providers ?? {}));
    const provider = isProvider ? named : primary.name;
    const model = isProvider ? entry.slice(colon + 1) : entry;
    try {
      if (provider === primary.name) return resolveProvider({ ...choice, provider, model }, env, config);
      const { maxTokens, thinking, requestTimeout, idleTimeout } = choice;
      const otherEnv = Object.fromEntries(
        Object.entries(env).filter(([name]) => !OWN_PROVIDER_VARIABLES.includes(name)),
      );
      return resolveProvider({ provider, model, maxTokens, thinking, requestTimeout, idleTimeout }, otherEnv, config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(`fallback model "${entry}": ${error.message}`, { isUsage: error.isUsage });
    }
  });
}

/**
 * `/model provider:model` naming another provider than `current`'s, as that provider's settings:
 * the session's first provider (`first`) with its flags (`--base-url`, `--api`), any other as a
 * fallback entry is (its own key, none of this one's); undefined for a model of the provider in
 * use. Throws ConfigError.
 */
export function otherProviderOf(
  first: ProviderSettings,
  choice: ProviderChoice,
  env: NodeJS.ProcessEnv,
  config: HarnessConfig,
): (entry: string, current: ProviderSettings) => ProviderSettings | undefined {
  return (entry, current) => {
    if (!entry.includes(":")) return undefined;
    const [next] = fallbackSettings([entry], first, choice, env, config);
    // A bare model id (no `provider:`) is the provider in use's, whichever provider the session began on.
    return next && next.name !== current.name && entry.startsWith(`${next.name}:`) ? next : undefined;
  };
}
