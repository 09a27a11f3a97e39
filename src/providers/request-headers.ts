// The headers of a request to each API: the key where that API reads it, and the settings' own
// headers, which win. Apart from post-json.ts, which sends any request and knows no settings.
import type { ProviderSettings } from "./index.ts";

/**
 * The headers of an OpenAI-compatible request: the key as a bearer token (a placeholder for
 * servers that need none), the organization and project from the variables the `openai` client
 * read, and the settings' own headers, which win whatever their case.
 */
export function openAIHeaders(settings: Pick<ProviderSettings, "apiKey" | "headers">): Record<string, string> {
  return jsonHeaders(
    {
      authorization: `Bearer ${settings.apiKey || "no-key"}`,
      ...(process.env.OPENAI_ORG_ID ? { "openai-organization": process.env.OPENAI_ORG_ID } : {}),
      ...(process.env.OPENAI_PROJECT_ID ? { "openai-project": process.env.OPENAI_PROJECT_ID } : {}),
    },
    settings.headers,
  );
}

/** The Messages API version harness speaks; every Anthropic request names it. */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The headers of an Anthropic request: the key as `x-api-key` (the header the API documents and
 * Anthropic-compatible servers read; a placeholder when there is none), the API version, and the
 * settings' own headers, which win whatever their case.
 */
export function anthropicHeaders(settings: Pick<ProviderSettings, "apiKey" | "headers">): Record<string, string> {
  return jsonHeaders(
    { "x-api-key": settings.apiKey || "no-key", "anthropic-version": ANTHROPIC_VERSION },
    settings.headers,
  );
}

/**
 * The headers of a Gemini request: the key as `x-goog-api-key` (kept out of the URL, where logs
 * and errors would show it), and the settings' own headers, which win whatever their case.
 * https://ai.google.dev/gemini-api/docs/api-key
 */
export function geminiHeaders(settings: Pick<ProviderSettings, "apiKey" | "headers">): Record<string, string> {
  return jsonHeaders({ "x-goog-api-key": settings.apiKey || "no-key" }, settings.headers);
}

/** Names are kept lower-case, so a header of the settings replaces ours whatever its case. */
function jsonHeaders(auth: Record<string, string>, own: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  for (const [name, value] of [...Object.entries(auth), ...Object.entries(own)]) headers[name.toLowerCase()] = value;
  return headers;
}
