// One API request: a JSON POST over Node's built-in `fetch`. It is all the official clients
// (`openai`, `@anthropic-ai/sdk`) did for the adapters, which read the reply themselves (sse.ts),
// and loading them put 363 KB (OpenAI) or 1.1 MB (Anthropic) of code to compile between start-up
// and the first request.
import type { ProviderSettings } from "./index.ts";

/** A non-2xx answer, in the shape http-errors.ts reads (the fields of the SDKs' APIError). */
export class HttpStatusError extends Error {
  override readonly name = "HttpStatusError";
  constructor(
    readonly status: number,
    readonly headers: Headers,
    /** The body parsed as JSON; undefined when it was not JSON (then the message carries it). */
    readonly error: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** Sends `body` as JSON; resolves to a 2xx response (its body unread), throws HttpStatusError otherwise. */
export async function postJson(url: string, headers: Headers, body: unknown, signal: AbortSignal): Promise<Response> {
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  if (response.ok) return response;
  throw await statusError(response);
}

/**
 * The headers of an OpenAI-compatible request: the key as a bearer token (a placeholder for
 * servers that need none), the organization and project from the variables the `openai` client
 * read, and the settings' own headers, which win whatever their case.
 */
export function openAIHeaders(settings: Pick<ProviderSettings, "apiKey" | "headers">): Headers {
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
export function anthropicHeaders(settings: Pick<ProviderSettings, "apiKey" | "headers">): Headers {
  return jsonHeaders(
    { "x-api-key": settings.apiKey || "no-key", "anthropic-version": ANTHROPIC_VERSION },
    settings.headers,
  );
}

function jsonHeaders(auth: Record<string, string>, own: Record<string, string> = {}): Headers {
  const headers = new Headers({ "content-type": "application/json", accept: "application/json", ...auth });
  for (const [name, value] of Object.entries(own)) headers.set(name, value);
  return headers;
}

/** `path` under the base URL, however many slashes the base ends with. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path}`;
}

async function statusError(response: Response): Promise<HttpStatusError> {
  const text = await response.text().catch((error: Error) => error.message);
  const json = parseJson(text);
  const inner = (json as { error?: { message?: unknown } } | undefined)?.error;
  const detail = typeof inner?.message === "string" ? inner.message : text.trim();
  const message = detail ? `${response.status} ${detail}` : `${response.status} status code (no body)`;
  return new HttpStatusError(response.status, response.headers, json, message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
