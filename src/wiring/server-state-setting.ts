// Whether a provider keeps the conversation on the API's side (Anthropic's message threads,
// OpenAI's stored responses): the settings, the endpoint and the model catalogue decide
// (docs/providers.md, "Server-side conversation state").
import type { ApiKind } from "../providers/index.ts";
import { modelFact } from "../providers/model-catalogue.ts";
import { apiRecord } from "../providers/wire-apis.ts";
import { configuredModels } from "../settings/config-file.ts";
import type { HarnessConfig } from "./config-file.ts";
import { ConfigError } from "./defaults.ts";

/** The values HARNESS_SERVER_STATE takes. */
const SWITCH_WORDS: Record<string, boolean> = { "1": true, on: true, true: true, "0": false, off: false, false: false };

/**
 * Whether requests keep the conversation on the API's side (providers/anthropic/anthropic-threads.ts):
 * never under zero data retention (config.json `zeroDataRetention`, top level or the provider's);
 * else as HARNESS_SERVER_STATE or the provider's `serverState` asks; else on at the API's own
 * endpoint only, as a gateway that drops the unknown field would silently lose the conversation.
 * Only for models whose catalogue entry (model-catalogue.ts, `serverState`) names the API. A
 * request for it that cannot be met is said once.
 */
export function serverStateFor(
  target: { name: string; api: ApiKind; model: string; baseUrl: string },
  env: NodeJS.ProcessEnv,
  config: HarnessConfig,
  notices: string[],
): { serverState?: true } {
  const custom = config.providers?.[target.name];
  const configured = config.models ? configuredModels(config) : undefined;
  const fromEnv = env.HARNESS_SERVER_STATE;
  const envValue = fromEnv === undefined || fromEnv === "" ? undefined : SWITCH_WORDS[fromEnv.toLowerCase()];
  if (fromEnv && envValue === undefined)
    throw new ConfigError(`HARNESS_SERVER_STATE takes on or off (got "${fromEnv}")`, { isUsage: true });
  const asked = envValue ?? custom?.serverState;
  const source = envValue !== undefined ? "HARNESS_SERVER_STATE" : `config.json providers.${target.name}.serverState`;
  const offer = apiRecord(target.api).serverState;
  const refuse = (why: string) => {
    if (asked) notices.push(`${source} is not taken: ${why}; whole conversations are sent`);
    return {};
  };
  if (config.zeroDataRetention || custom?.zeroDataRetention)
    return refuse("config.json asks for zero data retention (zeroDataRetention)");
  if (asked === false) return {};
  if (!offer) return refuse(`${target.api} keeps no conversation state`);
  const models = modelFact({ model: target.model, provider: target.name, configured }, "serverState")?.value;
  if (!models?.includes(target.api))
    return refuse(`${target.model} does not support it on ${target.api} (the model catalogue's serverState)`);
  if (asked) return { serverState: true };
  return hostOf(target.baseUrl) === offer.vendorHost ? { serverState: true } : {};
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
