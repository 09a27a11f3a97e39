// The one place that knows every adapter: the adapters import their settings type from
// index.ts, and this module imports them, so no adapter imports the module that imports it.
import type { Provider } from "../core/provider.ts";
import type { ProviderSettings } from "./index.ts";
import { createOpenAIChatProvider } from "./openai-chat.ts";
import { atTheEdge } from "./edge.ts";
import type { WireKind } from "./wire-apis.ts";

/**
 * What runs each wire API (wire-apis.ts has what users see of it): its adapter, loaded on first
 * use. Typed by kind, so a wire API added there without an adapter here does not compile.
 */
const ADAPTERS: Record<WireKind, (settings: ProviderSettings) => Promise<Provider>> = {
  openai: async (settings) => createOpenAIChatProvider(settings),
  responses: async (settings) => (await import("./openai-responses.ts")).createOpenAIResponsesProvider(settings),
  anthropic: async (settings) => (await import("./anthropic-messages.ts")).createAnthropicProvider(settings),
  gemini: async (settings) => (await import("./gemini.ts")).createGeminiProvider(settings),
};

/**
 * Builds the adapter for the settings' API, behind the edge (edge.ts) that converts what goes
 * to it. The local model runs in-process and takes the neutral messages as they are.
 */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  if (settings.api === "local") {
    const { createLocalProvider } = await import("./local-llama.ts");
    return createLocalProvider(settings);
  }
  return atTheEdge(await ADAPTERS[settings.api](settings), settings);
}
