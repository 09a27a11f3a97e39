// The official `openai` client as both OpenAI adapters (chat completions, Responses) build it:
// loaded on first use, no retries of its own, a placeholder key for servers that need none.
import { sdkTimeoutMs } from "./call-limits.ts";
import type { ProviderSettings } from "./index.ts";

/** A getter for one lazily created client; the SDK is imported on the first call. */
export function lazyOpenAIClient(
  settings: Pick<ProviderSettings, "apiKey" | "baseUrl" | "headers" | "requestTimeoutMs">,
): () => Promise<import("openai").OpenAI> {
  let client: Promise<import("openai").OpenAI> | undefined;
  return () =>
    (client ??= import("openai").then(
      ({ OpenAI }) =>
        new OpenAI({
          apiKey: settings.apiKey || "no-key",
          baseURL: settings.baseUrl,
          defaultHeaders: settings.headers,
          maxRetries: 0, // the loop retries, so it can report each retry as an event
          timeout: sdkTimeoutMs(settings),
        }),
    ));
}
