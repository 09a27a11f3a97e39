// The Gemini API adapter: `POST {base}/models/{model}:streamGenerateContent?alt=sse` (post-json.ts),
// the key in `x-goog-api-key`. https://ai.google.dev/api/generate-content
import type { ProviderError } from "../core/provider.ts";
import type { Provider } from "../core/provider.ts";
import { type GeminiChunk, GeminiStreamAccumulator } from "./gemini-stream.ts";
import { toGeminiRequest } from "./gemini-request.ts";
import { type ErrorContext, errorContextFor, toProviderError } from "./http-errors.ts";
import type { ProviderSettings } from "./index.ts";
import { endpoint, postJson } from "./post-json.ts";
import { geminiHeaders } from "./request-headers.ts";
import { planThinking } from "./thinking.ts";
import { type WireFormat, wireProvider } from "./wire-reply.ts";

export function createGeminiProvider(settings: ProviderSettings): Provider {
  const errorContext = errorContextFor(
    { ...settings, keyEnv: settings.keyEnv ?? "GEMINI_API_KEY" },
    "Gemini generateContent",
  );
  const thinking = planThinking(settings).fields;
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
