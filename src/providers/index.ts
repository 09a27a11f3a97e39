import type { Provider } from "../core/provider.ts";
import { createOpenAIChatProvider } from "./openai-chat.ts";

/** The wire APIs we speak. */
export type ApiKind = "openai" | "anthropic";

/** Everything needed to build a provider; config resolution fills it in. */
export interface ProviderSettings {
  /** The name the user picked (`openai`, `openrouter`, a custom provider...). */
  name: string;
  api: ApiKind;
  model: string;
  baseUrl: string;
  apiKey?: string;
  keyEnv?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Extended thinking budget in tokens (Anthropic `thinking.budget_tokens`); absent = no thinking. */
  thinkingBudget?: number;
}

/** Builds the adapter for the settings' API. Adapters load their SDK lazily, on first use. */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  switch (settings.api) {
    case "openai":
      return createOpenAIChatProvider(settings);
    case "anthropic": {
      const { createAnthropicProvider } = await import("./anthropic-messages.ts");
      return createAnthropicProvider(settings);
    }
  }
}
