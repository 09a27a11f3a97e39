// How many tokens the model's context holds. Compaction asks this; nothing at start-up does.

import { deadline } from "../shared/helpers.ts";
import type { ModelEntry } from "./catalogue/model-entry.ts";
import type { ProviderSettings } from "./index.ts";
import { DEFAULT_CONTEXT_WINDOW, lookupContextWindow } from "./model-info.ts";
import { sendRequest } from "./post-json.ts";
import { looksLocal } from "./server-locality.ts";
import { cachedWindow, rememberWindow } from "./window-cache.ts";
import { apiRecord } from "./wire-apis.ts";

/** A local server that has not said its window by then is not going to; the table answers instead. */
const PROBE_TIMEOUT_MS = 2000;
/** One probe per server and model for the life of the process, failed ones included (and across runs: window-cache.ts). */
const probes = new Map<string, Promise<number | undefined>>();

/**
 * A context option for the loop that is usable at once: the window from config.json or the
 * table now, replaced in place by `answer` (by default what resolveContextWindow finds, which
 * may mean asking a local server) when it arrives. So the probe runs alongside the first
 * request instead of before it; `known` settles when the answer is in. A fresh conversation is
 * far below any window at its first request, and a server that turns out smaller than the
 * guess is caught by the loop's overflow handling anyway.
 */
export function liveContextWindow(
  settings: ProviderSettings,
  answer: Promise<number> = resolveContextWindow(settings),
): { context: { window: number }; known: Promise<void> } {
  const context = {
    window:
      settings.contextWindow ?? lookupContextWindow(settings.model, catalogueOf(settings)) ?? DEFAULT_CONTEXT_WINDOW,
  };
  const known = answer.then((window) => {
    context.window = window;
  });
  return { context, known };
}

/**
 * The context window in tokens, from the first that knows: config.json (`contextWindow`), the
 * server itself (llama.cpp `GET /props`, Ollama `POST /api/show`; asked once, briefly, and only
 * servers of an API whose record says `asksServerWindow` (the OpenAI-compatible ones) that look
 * local or are configured `"local": true`), the built-in table, a default.
 * Never throws: a server that does not answer is simply not asked again.
 */
export async function resolveContextWindow(settings: ProviderSettings): Promise<number> {
  if (settings.contextWindow) return settings.contextWindow;
  const reported = await askServerOnce(settings);
  return reported ?? lookupContextWindow(settings.model, catalogueOf(settings)) ?? DEFAULT_CONTEXT_WINDOW;
}

/** Where the catalogue looks for this provider's models: its preset's entries and config.json's. */
function catalogueOf(settings: ProviderSettings): { provider: string; configured?: readonly ModelEntry[] } {
  return { provider: settings.name, configured: settings.modelEntries };
}

function askServerOnce(settings: ProviderSettings): Promise<number | undefined> | undefined {
  if (!apiRecord(settings.api).asksServerWindow) return undefined;
  if (!(settings.local ?? looksLocal(settings.baseUrl))) return undefined;
  const key = `${withoutCredentials(settings.baseUrl)}\n${settings.model}`;
  let probe = probes.get(key);
  if (!probe) {
    const file = settings.windowCacheFile;
    const cached = file === undefined ? undefined : cachedWindow(file, key);
    probe = cached
      ? Promise.resolve(cached.window)
      : probeServer(settings).then((window) => {
          if (file !== undefined) rememberWindow(file, key, window);
          return window;
        });
    probes.set(key, probe);
  }
  return probe;
}

/**
 * The base URL as the cache file names it: scheme, host and path. A `user:password@` or a query
 * (`?api-key=...`) may be a credential, never written down.
 */
function withoutCredentials(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname}`;
}

/** Asks both kinds of server at once; each answers the other's question with a 404. */
async function probeServer(settings: ProviderSettings): Promise<number | undefined> {
  const root = settings.baseUrl.replace(/\/v1$/, "");
  const headers: Record<string, string> = {
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    ...settings.headers,
  };
  const cap = deadline(PROBE_TIMEOUT_MS);
  const signal = cap.signal;
  const [llamaCpp, ollama] = await Promise.all([
    askJson(`${root}/props`, { method: "GET", headers, signal }).then(llamaCppWindow),
    askJson(`${root}/api/show`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ model: settings.model }),
      signal,
    }).then(ollamaWindow),
  ]).finally(() => cap.clear());
  return llamaCpp ?? ollama;
}

async function askJson(url: string, init: Parameters<typeof sendRequest>[1]): Promise<unknown> {
  try {
    const reply = await sendRequest(url, init);
    if (reply.status >= 200 && reply.status < 300) return await reply.json();
    await reply.text(); // read, so the connection is free for the next request
    return undefined;
  } catch {
    return undefined;
  }
}

/** llama.cpp's `/props`: the context each slot gets, which is what one conversation can use. */
export function llamaCppWindow(props: unknown): number | undefined {
  return positive(
    (props as { default_generation_settings?: { n_ctx?: unknown } } | undefined)?.default_generation_settings?.n_ctx,
  );
}

/**
 * Ollama's `/api/show`: `num_ctx` from the model's parameters when its Modelfile sets one (that
 * is what the server will use), else the model's trained length (`<arch>.context_length`). A
 * server-wide default (OLLAMA_CONTEXT_LENGTH) is invisible here; config.json can say it.
 */
export function ollamaWindow(show: unknown): number | undefined {
  const { model_info: info, parameters } = (show ?? {}) as {
    model_info?: Record<string, unknown>;
    parameters?: unknown;
  };
  const numCtx =
    typeof parameters === "string" ? positive(Number(/^num_ctx\s+(\d+)/m.exec(parameters)?.[1])) : undefined;
  const architecture = info?.["general.architecture"];
  const trained = typeof architecture === "string" ? positive(info?.[`${architecture}.context_length`]) : undefined;
  if (numCtx && trained) return Math.min(numCtx, trained);
  return numCtx ?? trained;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}
