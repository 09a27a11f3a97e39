// The one place that knows every adapter: the adapters import their settings type from
// index.ts, and this module imports them, so no adapter imports the module that imports it.
import type { Provider } from "../core/provider.ts";
import type { ProviderSettings } from "./index.ts";
import { createOpenAIChatProvider } from "./openai-chat.ts";
import { assertNever } from "../core/messages.ts";

/** Builds the adapter for the settings' API. Adapters load their SDK lazily, on first use. */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  switch (settings.api) {
    case "openai":
      return createOpenAIChatProvider(settings);
    case "responses": {
      const { createOpenAIResponsesProvider } = await import("./openai-responses.ts");
      return createOpenAIResponsesProvider(settings);
    }
    case "anthropic": {
      const { createAnthropicProvider } = await import("./anthropic-messages.ts");
      return createAnthropicProvider(settings);
    }
    case "local": {
      const { createLocalProvider } = await import("./local-llama.ts");
      return createLocalProvider(settings);
    }
    default:
      return assertNever(settings.api);
  }
}
