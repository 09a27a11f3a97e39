// The headers of a JSON request: the key where the API reads it, and the settings' own headers,
// which win. OpenAI's are here, shared by its two APIs and every OpenAI-compatible server; each
// other API's are in its request file, named by its record (wire-apis.ts). Apart from
// post-json.ts, which sends any request and knows no settings.
import type { AdapterSettings } from "./adapter-settings.ts";

/**
 * The headers of an OpenAI-compatible request: the key as a bearer token (a placeholder for
 * servers that need none), the organization and project from the variables the `openai` client
 * read, and the settings' own headers, which win whatever their case.
 */
export function openAIHeaders(settings: Pick<AdapterSettings, "apiKey" | "headers">): Record<string, string> {
  return jsonHeaders(
    {
      authorization: `Bearer ${settings.apiKey || "no-key"}`,
      ...(process.env.OPENAI_ORG_ID ? { "openai-organization": process.env.OPENAI_ORG_ID } : {}),
      ...(process.env.OPENAI_PROJECT_ID ? { "openai-project": process.env.OPENAI_PROJECT_ID } : {}),
    },
    settings.headers,
  );
}

/** A JSON request's headers; names are kept lower-case, so a header of the settings replaces ours whatever its case. */
export function jsonHeaders(auth: Record<string, string>, own: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  for (const [name, value] of Object.entries(auth)) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(own)) headers[name.toLowerCase()] = value;
  return headers;
}
