// How flags, environment, config.json and the built-in presets (defaults.ts) combine into one
// provider's settings.
import { join } from "node:path";
import type { CallLimits } from "../providers/call-limits.ts";
import type { ApiKind, ProviderSettings } from "../providers/index.ts";
import { resolveAlias } from "../providers/model-catalogue.ts";
import { apiRecord } from "../providers/wire-apis.ts";
import { configuredModels } from "../settings/config-file.ts";
import type { HarnessConfig } from "./config-file.ts";
import {
  ConfigError,
  KEYED_PROVIDERS,
  keyVariableList,
  NoProviderError,
  PRESETS,
  type ProviderChoice,
  type ProviderPreset,
  stateDir,
} from "./defaults.ts";
import { serverStateFor } from "./server-state-setting.ts";
import { signInEndpoint, signInSettings } from "./sign-in-provider.ts";
import { moreKeyVariables, vendorBaseUrl, vendorBearerToken } from "./vendor-environment.ts";

/**
 * Resolves provider settings. Each setting takes the first of: flags, environment, config.json
 * (`config`, from loadConfigFile), built-in defaults. With no key anywhere the error names the exact
 * variable to set. config.json's top-level `model` belongs to its top-level `provider` alone.
 */
export function resolveProvider(
  flags: ProviderChoice,
  env: NodeJS.ProcessEnv,
  config: HarnessConfig = {},
): ProviderSettings {
  const urlOverride = flags.baseUrl ?? env.HARNESS_BASE_URL;
  // A malformed URL would otherwise be retried as if the network had failed.
  if (urlOverride !== undefined && !isHttpUrl(urlOverride)) {
    const source = flags.baseUrl !== undefined ? "--base-url" : "HARNESS_BASE_URL";
    throw new ConfigError(
      `${source} takes an http:// or https:// URL, such as http://127.0.0.1:8080/v1 (got "${urlOverride}")`,
      { isUsage: true },
    );
  }
  const notices: string[] = [];
  const name = flags.provider ?? env.HARNESS_PROVIDER ?? config.provider ?? guessProvider(env, urlOverride, notices);
  const preset = PRESETS[name] as ProviderPreset | undefined;
  const custom = config.providers?.[name];
  if (!preset && !custom) {
    const known = [...Object.keys(PRESETS), ...Object.keys(config.providers ?? {})];
    throw new ConfigError(
      `unknown provider "${name}"; choose one of: ${known.join(", ")} (or add it to config.json "providers")`,
      { isUsage: true },
    );
  }
  // config-file.ts guarantees a custom provider (no preset) has api and baseUrl. config.json's
  // top-level `api`, like its `model`, belongs to its top-level provider.
  const configApi = config.provider === undefined || config.provider === name ? config.api : undefined;
  const api = (flags.api ?? configApi ?? custom?.api ?? preset?.api) as ApiKind;
  if (api !== preset?.api && preset?.api === "local")
    throw new ConfigError(
      'a wire API (--api, config "api") does not apply to the local provider: it runs the model in-process',
      { isUsage: true },
    );
  const record = apiRecord(api);
  const signInUrl = preset?.signIn ? signInEndpoint(name, preset, env, { urlOverride, custom, api }) : undefined;
  const vendorUrl = preset ? vendorBaseUrl(name, env) : undefined;
  const baseUrl =
    signInUrl ?? (urlOverride ?? custom?.baseUrl ?? vendorUrl?.url ?? preset?.baseUrl ?? "").replace(/\/+$/, "");
  const key = keyFrom(signInUrl ? {} : env, custom?.apiKeyEnv, custom?.apiKeyEnv ? undefined : name, notices);
  const bearer = preset && !key.value ? vendorBearerToken(name, env) : undefined;
  const keyEnv = bearer?.variable ?? key.variable;
  const apiKey = key.value;
  const headers = bearer ? { ...custom?.headers, authorization: `Bearer ${bearer.token}` } : custom?.headers;
  // A custom base URL may be a local server that needs no key; the official endpoints, and
  // configured providers that name their key variable, always do.
  const needsKey = Boolean(keyEnv) && !urlOverride && (custom?.apiKeyEnv !== undefined || baseUrl === preset?.baseUrl);
  if (!apiKey && !bearer && needsKey) {
    throw new ConfigError(`no API key for ${name}: set ${keyEnv} (or HARNESS_API_KEY), or choose another --provider`);
  }
  const configModel = config.provider === undefined || config.provider === name ? config.model : undefined;
  const named =
    flags.model ??
    env.HARNESS_MODEL ??
    configModel ??
    custom?.model ??
    Object.keys(custom?.models ?? {})[0] ??
    preset?.defaultModel;
  const model = named && !custom?.models?.[named] ? aliasOf(api, named, env, notices) : named;
  if (!model)
    throw new ConfigError(
      `no model for provider "${name}": give --model, or set providers.${name}.model in config.json`,
      { isUsage: true },
    );
  const perModel = custom?.models?.[model];
  const maxTokens = flags.maxTokens ?? perModel?.maxTokens ?? custom?.maxTokens;
  const thinking = flags.thinking ?? config.thinking;
  // A budget the API refuses (Anthropic's under its minimum or not below max_tokens) is said before
  // the call; elsewhere a level that cannot be carried is left out with a notice (thinking.ts).
  const budgetProblem = typeof thinking === "number" ? record.budgetProblem?.(thinking, model, maxTokens) : undefined;
  if (budgetProblem) throw new ConfigError(budgetProblem, { isUsage: true });
  return {
    name,
    api,
    model,
    baseUrl,
    apiKey,
    keyEnv,
    ...(headers ? { headers } : {}),
    ...(api === "local" ? { modelsDir: join(stateDir(env), "models"), ...localThreads(env, custom?.threads) } : {}),
    windowCacheFile: join(stateDir(env), "cache", "context-windows.json"),
    ...callLimitsFrom(flags, env, config),
    ...(record.takesWebSearch && config.webSearch ? { webSearch: webSearchFrom(config.webSearch) } : {}),
    ...serverStateFor({ name, api, model, baseUrl }, env, config, notices),
    ...definedOnly({
      thinking,
      maxTokens,
      contextWindow: perModel?.contextWindow ?? custom?.contextWindow,
      local: custom?.local,
      prices: perModel?.prices ?? custom?.prices,
    }),
    ...(config.models ? { modelEntries: configuredModels(config) } : {}),
    ...(signInUrl ? signInSettings(name, stateDir(env), perModel?.prices ?? custom?.prices) : {}),
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/**
 * The key and the variable it came from: HARNESS_API_KEY, else the provider's own variable (a
 * custom provider's `apiKeyEnv`, a preset's), else the vendor's further ones (GOOGLE_API_KEY).
 * `keyEnv` names the variable to set when none is, for the error messages.
 */
function keyFrom(
  env: NodeJS.ProcessEnv,
  customKeyEnv: string | undefined,
  presetName: string | undefined,
  notices: string[],
): { value?: string; variable?: string } {
  const own = customKeyEnv ?? (presetName ? PRESETS[presetName]?.keyEnv : undefined);
  if (env.HARNESS_API_KEY) return { value: env.HARNESS_API_KEY, variable: own };
  const candidates = [...(own ? [own] : []), ...(presetName ? moreKeyVariables(presetName) : [])];
  const set = candidates.filter((variable) => env[variable]);
  if (set.length === 0) return { variable: own };
  const others = set.slice(1).filter((variable) => env[variable] !== env[set[0]]);
  if (others.length > 0) notices.push(`using the key in ${set[0]}; ${others.join(" and ")} holds another, not used`);
  return { value: env[set[0]], variable: set[0] };
}

/** The id an alias stands for on the API (the catalogue's), said once; other names are ids already. */
function aliasOf(api: ApiKind, model: string, env: NodeJS.ProcessEnv, notices: string[]): string {
  const resolved = resolveAlias(api, model, env);
  if (!resolved) return model;
  notices.push(`model "${model}" is ${resolved.id}${resolved.variable ? ` (from ${resolved.variable})` : ""}`);
  return resolved.id;
}

/** `HARNESS_LOCAL_THREADS`, else config.json's `threads`; absent: the local provider takes the math cores. */
function localThreads(env: NodeJS.ProcessEnv, configured: number | undefined): { threads?: number } {
  const fromEnv = env.HARNESS_LOCAL_THREADS;
  if (fromEnv === undefined || fromEnv === "") return configured === undefined ? {} : { threads: configured };
  const threads = Number(fromEnv);
  if (!Number.isInteger(threads) || threads < 1 || threads > 256)
    throw new ConfigError(`HARNESS_LOCAL_THREADS must be a whole number from 1 to 256, not "${fromEnv}"`, {
      isUsage: true,
    });
  return { threads };
}

/** Searches per request when config.json says only `"webSearch": true`. */
const DEFAULT_WEB_SEARCHES = 5;

function webSearchFrom(setting: true | { maxUses?: number }): { maxUses: number } {
  return { maxUses: (setting === true ? undefined : setting.maxUses) ?? DEFAULT_WEB_SEARCHES };
}

/**
 * The bounds of one model call (providers/call-limits.ts): flags, then the environment, then
 * config.json (`requestTimeout`, `idleTimeout` in seconds, `maxReplyBytes`), else the defaults.
 */
function callLimitsFrom(flags: ProviderChoice, env: NodeJS.ProcessEnv, config: HarnessConfig): CallLimits {
  const requestTimeout = flags.requestTimeout ?? env.HARNESS_REQUEST_TIMEOUT;
  const idleTimeout = flags.idleTimeout ?? env.HARNESS_IDLE_TIMEOUT;
  const maxReplyBytes = env.HARNESS_MAX_REPLY_BYTES;
  return definedOnly({
    requestTimeoutMs:
      requestTimeout !== undefined
        ? positiveNumber(
            requestTimeout,
            flags.requestTimeout ? "--request-timeout" : "HARNESS_REQUEST_TIMEOUT",
            "seconds",
          ) * 1000
        : toMs(config.requestTimeout),
    idleTimeoutMs:
      idleTimeout !== undefined
        ? positiveNumber(idleTimeout, flags.idleTimeout ? "--idle-timeout" : "HARNESS_IDLE_TIMEOUT", "seconds") * 1000
        : toMs(config.idleTimeout),
    maxReplyBytes:
      maxReplyBytes !== undefined
        ? Math.floor(positiveNumber(maxReplyBytes, "HARNESS_MAX_REPLY_BYTES", "bytes"))
        : config.maxReplyBytes,
  });
}

function positiveNumber(text: string, name: string, unit: string): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(value > 0))
    throw new ConfigError(`${name} takes a number of ${unit} above 0 (got "${text}")`, { isUsage: true });
  return value;
}

function toMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * The provider when none is named: one whose URL says it is Anthropic's, else the first whose key
 * is set (KEYED_PROVIDERS' order), with `--base-url` too: a key set for one vendor goes with its
 * API to the URL given, where before it picked OpenAI chat and sent no key. With no key, a base
 * URL is an OpenAI-compatible server (local ones need none).
 */
function guessProvider(env: NodeJS.ProcessEnv, baseUrl: string | undefined, notices: string[]): string {
  if (baseUrl && /anthropic/.test(baseUrl)) return "anthropic";
  const withKeys = KEYED_PROVIDERS.filter(
    (name) =>
      ([PRESETS[name].keyEnv as string, ...moreKeyVariables(name)].some((variable) => env[variable]) ||
        vendorBearerToken(name, env) !== undefined) &&
      // A key bound to its vendor's hosts (ProviderPreset.keyOnlyFor) never leaves for another server.
      (baseUrl === undefined || isOnDomain(baseUrl, PRESETS[name].keyOnlyFor)),
  );
  if (withKeys.length > 0) {
    if (baseUrl && withKeys.length > 1)
      notices.push(
        `${baseUrl} is taken as ${withKeys[0]}'s (its key is set, as are ${withKeys.slice(1).join(" and ")}'s): give --provider to choose another`,
      );
    return withKeys[0];
  }
  if (env.HARNESS_API_KEY || baseUrl) return "openai";
  throw new NoProviderError(
    `no provider configured: set ${keyVariableList()}, or use --provider local to run a model in-process with no key (downloads about 2.5 GB once), --provider ollama for a local Ollama server, --base-url for any OpenAI-compatible server, or set "provider" in config.json`,
  );
}

/** Whether a URL's host is `domain` or below it; true when no domain binds the key. */
function isOnDomain(url: string, domain: string | undefined): boolean {
  if (domain === undefined) return true;
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === domain || host.endsWith(`.${domain}`);
}
