// The Gemini API adapter: `POST {base}/models/{model}:streamGenerateContent?alt=sse` (post-json.ts),
// the key in `x-goog-api-key`, and its model list. https://ai.google.dev/api/generate-content
import type { Provider, ProviderError } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { type ErrorContext, errorContextFor, toProviderError } from "../http-errors.ts";
import { getJson, MAX_PAGES, ModelListError } from "../list-models.ts";
import { endpoint, postJson } from "../post-json.ts";
import { planWith } from "../thinking-levels.ts";
import { type WireFormat, wireProvider } from "../wire-reply.ts";
import { geminiHeaders, geminiThinking, toGeminiRequest } from "./gemini-request.ts";
import { type GeminiChunk, GeminiStreamAccumulator } from "./gemini-stream.ts";

export function createGeminiProvider(settings: AdapterSettings): Provider {
  const errorContext = errorContextFor(
    { ...settings, keyEnv: settings.keyEnv ?? "GEMINI_API_KEY" },
    "Gemini generateContent",
  );
  const thinking = planWith(geminiThinking, settings).fields;
  const model = settings.model.replace(/^models\//, "");
  const url = `${endpoint(settings.baseUrl, `models/${encodeURIComponent(model)}`)}:streamGenerateContent?alt=sse`;
  const headers = geminiHeaders(settings);
  return wireProvider(settings, errorContext, GEMINI_FORMAT, (request, signal) =>
    postJson(url, headers, toGeminiRequest(request, thinking), signal),
  );
}

/** How Gemini replies fold into a message. */
const GEMINI_FORMAT: WireFormat<GeminiChunk> = {
  newAccumulator: () => new GeminiStreamAccumulator(),
  /** A plain JSON body: one response, or (without `alt=sse`) the array of streamed ones. */
  eventsOfWhole(body, context) {
    const chunks = (Array.isArray(body) ? body : [body]) as GeminiChunk[];
    for (const chunk of chunks) if (chunk?.error) throw failure(chunk.error, context);
    return chunks;
  },
  /** An error mid-stream comes as `{"error": {"code": 503, "status": "UNAVAILABLE", ...}}`. */
  checkEvent(event, _sseName, context) {
    if (event?.error) throw failure(event.error, context);
  },
};

/** Gemini's error object (`{code, message, status}`) as an HTTP error of its code. */
function failure(error: unknown, context: ErrorContext): ProviderError {
  const wire = (error && typeof error === "object" ? error : {}) as { code?: unknown };
  const status = typeof wire.code === "number" ? wire.code : undefined;
  return toProviderError({ status, error: { error } }, context);
}

/** Gemini's largest page of models. */
const PAGE_SIZE = 1000;

/**
 * Gemini's list: `{ models: [{ name: "models/gemini-2.5-flash", supportedGenerationMethods }] }`,
 * paged by `nextPageToken`; only models that generate content are offered, without the prefix.
 */
export async function listGeminiModels(settings: AdapterSettings, signal: AbortSignal): Promise<string[]> {
  const headers = geminiHeaders(settings);
  const ids: string[] = [];
  let token: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const url = `${settings.baseUrl}/models?pageSize=${PAGE_SIZE}${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`;
    const page = (await getJson(url, headers, settings, signal)) as {
      models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }>;
      nextPageToken?: string;
    };
    if (!Array.isArray(page?.models))
      throw new ModelListError(`${settings.name} answered the model list in an unknown shape (no "models" array)`);
    for (const model of page.models) {
      const methods = Array.isArray(model.supportedGenerationMethods) ? model.supportedGenerationMethods : [];
      if (typeof model.name === "string" && (methods.length === 0 || methods.includes("generateContent")))
        ids.push(model.name.replace(/^models\//, ""));
    }
    token = page.nextPageToken;
    if (!token) break;
  }
  return ids.sort();
}
