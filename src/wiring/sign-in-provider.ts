// What a sign-in provider (`chatgpt`, `copilot`: defaults.ts marks them) changes in how a
// provider's settings are resolved (resolve-provider.ts): its endpoint is the service's own, and
// nothing may move it, since the sign-in's tokens go only to the hosts that issued them for.
import type { Prices } from "../providers/catalogue/model-entry.ts";
import { SignInError } from "../providers/sign-in/credential-store.ts";
import { endpoint } from "../providers/sign-in/sign-in-endpoints.ts";
import { ConfigError, type ProviderPreset } from "./defaults.ts";

/** A plan's usage: no price per token. */
const NO_PRICE: Prices = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/**
 * The settings a sign-in provider adds: its name and the store's folder (the adapter reads the
 * tokens from there per request), and no price per token (a plan's usage costs nothing more),
 * unless config.json names prices.
 */
export function signInSettings(name: string, home: string, configuredPrices: Prices | undefined) {
  return { signIn: name, signInHome: home, prices: configuredPrices ?? NO_PRICE };
}

/**
 * A sign-in provider's endpoint, the service's own (or its test hook). Refuses the settings that
 * would send its tokens elsewhere or speak another API to it; it takes no key of the environment
 * either (resolve-provider.ts): its own tokens go on each request (sign-in-headers.ts).
 */
export function signInEndpoint(
  name: string,
  preset: ProviderPreset,
  env: NodeJS.ProcessEnv,
  given: { urlOverride?: string; custom?: { baseUrl?: string }; api: string },
): string {
  const refuse = (what: string) =>
    new ConfigError(
      `${what} does not apply to ${name}: its sign-in's tokens go only to ${new URL(preset.baseUrl).host}`,
      {
        isUsage: true,
      },
    );
  if (given.urlOverride !== undefined) throw refuse("--base-url (or HARNESS_BASE_URL)");
  if (given.custom?.baseUrl !== undefined) throw refuse(`config.json providers.${name}.baseUrl`);
  if (given.api !== preset.api)
    throw new ConfigError(`${name} speaks only its own API (${preset.api}); leave out --api and config.json "api"`, {
      isUsage: true,
    });
  try {
    return name === "chatgpt" ? endpoint("HARNESS_TEST_CHATGPT_API", env) : endpoint("HARNESS_TEST_COPILOT_API", env);
  } catch (error) {
    if (error instanceof SignInError) throw new ConfigError(error.message, { isUsage: true });
    throw error;
  }
}
