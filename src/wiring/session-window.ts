// A session's context window as it starts (create-session.ts): the one --context-window or the
// environment fixed, else the provider's own answer, else the table.
import type { Provider } from "../core/provider.ts";
import { liveContextWindow, resolveContextWindow } from "../providers/context-window.ts";
import type { ProviderSettings } from "../providers/index.ts";

/**
 * The context window, started now and never waited for by a new conversation: a local server
 * may be probed for its window (context-window.ts), and a local model knows its own (loading
 * it, which its first call does anyway). A resumed conversation may already be near the window,
 * so the caller waits for it then.
 */
export function contextWindowFor(windowOverride: number | undefined, settings: ProviderSettings, provider: Provider) {
  return liveContextWindow(
    settings,
    windowOverride !== undefined
      ? Promise.resolve(windowOverride)
      : "contextWindow" in provider && typeof provider.contextWindow === "function"
        ? (provider.contextWindow as () => Promise<number>)().catch(() => resolveContextWindow(settings))
        : undefined,
  );
}
