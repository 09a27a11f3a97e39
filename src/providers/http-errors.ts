import { assertNever } from "../core/messages.ts";
import { ProviderError, type ProviderErrorKind, parseRetryAfter } from "../core/provider.ts";

/** What an error message needs to say which setting to fix. */
export interface ErrorContext {
  provider: string;
  model: string;
  baseUrl: string;
  /** The environment variable the key comes from, if any. */
  keyEnv?: string;
  /** The wire API in words, for "does not speak the ... API". */
  api: string;
  /** A sign-in provider's name (`chatgpt`): a refused request says to log in again. */
  signIn?: string;
}

/** An adapter's ErrorContext: its settings' names and where its key comes from, and its wire API in words. */
export function errorContextFor(
  settings: { name: string; model: string; baseUrl: string; keyEnv?: string; signIn?: string },
  api: string,
): ErrorContext {
  const { name: provider, model, baseUrl, keyEnv, signIn } = settings;
  return { provider, model, baseUrl, keyEnv, api, signIn };
}

/** The fields the official SDKs' APIError carries (both OpenAI's and Anthropic's). */
interface SdkError {
  name?: string;
  message?: string;
  status?: number;
  headers?: { get(name: string): string | null };
  error?: unknown;
}

/**
 * How servers say a request is too long for the model, matched against the message and the
 * error's code/type. OpenAI `context_length_exceeded` ("This model's maximum context length is"),
 * also vLLM, OpenRouter, Mistral; Anthropic "prompt is too long: 210000 tokens > 200000 maximum"
 * and "input length and `max_tokens` exceed context limit"; llama.cpp "the request exceeds the
 * available context size" (type `exceed_context_size_error`); Ollama "exceeds maximum context
 * length"; LM Studio "context length of only"; Gemini "input token count ... exceeds the maximum
 * number of tokens". The loop answers these by compacting the conversation.
 */
const CONTEXT_OVERFLOW =
  /context[_ ]length|maximum context|context window|context[_ ]size|too many tokens|prompt is too long|exceed(s|ed)? (the )?(available )?context|exceed_context|input length and `?max_tokens`? exceed|exceeds the maximum number of tokens/i;

/**
 * How servers say the model takes no images: OpenAI "image_url is only supported by certain
 * models" / "Invalid content type. image_url"; vLLM "is not a multimodal model"; llama.cpp
 * "image input is not supported"; LM Studio "Model does not support images"; OpenRouter "No
 * endpoints found that support image input" (a 404); DeepSeek "unknown variant `image_url`".
 * Sending again cannot help, so these are final (bad_request), whatever their status.
 */
const NO_VISION =
  /image_url is only supported|invalid content type\. image_url|not a multimodal model|image input is not supported|does not support (image|vision)|support image input|unknown variant `image_url`|images? (are|is) not supported|vision is not (enabled|supported)/i;

/**
 * Maps an SDK or network failure to a ProviderError with a one-line message a user can act on.
 * Mid-stream errors (a JSON `error` object in an SSE payload) arrive here too, with no HTTP
 * status but often a numeric one in the payload (`status_code: 400`, OpenRouter's `code: 502`).
 */
export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const sdk = (error ?? {}) as SdkError;
  if (sdk.name === "APIUserAbortError" || sdk.name === "AbortError")
    return new ProviderError("aborted", "interrupted", { cause: error });
  const status = sdk.status ?? numericStatus(sdk.error);
  if (status === undefined && !sdk.error) return connectionError(sdk, context);
  const retryAfterMs = parseRetryAfter(sdk.headers);
  const body = nonJsonBody(sdk, status);
  if (body !== undefined) {
    // A page where an API error was due: a 4xx means the wrong server (or path), a 5xx or 429
    // may be a proxy in front of the right one, so those keep their kind and their retries.
    const kind = classifyStatus(status!);
    if (kind === "bad_request" || kind === "not_found") return notApiError(context, String(status), body, status);
    return new ProviderError(kind, describe(kind, status, summarizeBody(body), context), {
      status,
      retryAfterMs,
      cause: error,
    });
  }
  const detail = errorDetail(sdk);
  if (NO_VISION.test(detail)) {
    return new ProviderError(
      "bad_request",
      `${status ? `${status} ` : ""}${context.model} at ${where(context)} cannot take images: ${detail} (use a model with vision, or leave the image out: /clear in chat)`,
      { status, cause: error },
    );
  }
  const kind = classify(status, sdk, detail);
  return new ProviderError(kind, describe(kind, status, detail, context), { status, retryAfterMs, cause: error });
}

/** An endpoint that answered, but not in the API's language: named with its body in one line. Not retried. */
export function notApiError(context: ErrorContext, answer: string, body: string, status?: number): ProviderError {
  return new ProviderError(
    "not_api",
    `${where(context)} answered ${answer}: ${summarizeBody(body) || "an empty body"}; it does not speak the ${context.api} API (check --base-url)`,
    { status },
  );
}

/** Bodies summarised in an error line are cut to this many characters. */
const MAX_SUMMARY_CHARS = 120;

/** A response body in one short line: an HTML page by its title (or its text), anything else quoted from its start. */
function summarizeBody(body: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  const isHtml = /^\s*<(!doctype|html|head|body|\?xml)/i.test(body) || title !== undefined;
  const text = (isHtml ? (title ?? body.replace(/<[^>]*>/g, " ")) : body).replace(/\s+/g, " ").trim();
  if (!text) return isHtml ? "an HTML page" : "";
  const cut = text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…` : text;
  return isHtml ? `an HTML page ("${cut}")` : `"${cut}"`;
}

/**
 * The kind of an HTTP status (the retry table in docs/events.md follows from it): 408 and 409
 * ask for the same request again, so they are retried; every other 4xx but 429 is final.
 * Decision: 501 (Not Implemented) and 505 (HTTP Version Not Supported) say the server does not do
 * this at all (RFC 9110 15.6.2, 15.6.6), so they are final too, and an HTML page with one names the
 * wrong server at once instead of after a quarter of a minute of retries.
 */
export function classifyStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 408 || status === 409) return "transient";
  if (status === 501 || status === 505) return "bad_request";
  if (status === 413) return "context_overflow"; // a body too large in bytes is cured the same way
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status >= 500) return "server";
  return "bad_request";
}

/** A numeric status decides; the message and the error's type/code refine it (context overflow) or stand in when there is none. */
function classify(status: number | undefined, sdk: SdkError, detail: string): ProviderErrorKind {
  const type = errorType(sdk.error);
  if (status === 401 || status === 403 || type === "authentication_error" || type === "permission_error") return "auth";
  if (CONTEXT_OVERFLOW.test(`${detail} ${type} ${errorCode(sdk.error)}`)) return "context_overflow";
  // Used-up quota or credit comes as a 429 too, but no wait cures it: said once, not retried.
  if (type === "insufficient_quota" || errorCode(sdk.error) === "insufficient_quota") return "quota";
  // Gemini's overload: 503 UNAVAILABLE, "The model is overloaded" (google-gemini/gemini-cli#4360,
  // ai.google.dev/gemini-api/docs/troubleshooting#error-codes), retried as 529; a bare 503 is a server error.
  if (status === 503 && innerError(sdk.error)?.status === "UNAVAILABLE") return "overloaded";
  if (status !== undefined) return classifyStatus(status);
  switch (type) {
    case "request_too_large":
      return "context_overflow";
    case "not_found_error":
      return "not_found";
    case "rate_limit_error":
      return "rate_limit";
    case "overloaded_error":
      return "overloaded";
    case "invalid_request_error":
      return "bad_request";
    default:
      // An error object with neither status nor a known type, mid-stream: the server failed.
      return "server";
  }
}

/**
 * A 404 about the model, not the route: OpenAI "The model `x` does not exist" (code
 * model_not_found), Anthropic "model: x" (not_found_error), Ollama "model 'x' not found",
 * OpenRouter "No endpoints found for x". A 404 that names no model is a missing route: FastAPI
 * servers (vLLM) answer `{"detail":"Not Found"}`, llama.cpp "File Not Found".
 */
const MODEL_NOT_FOUND = /model|no endpoints found/i;

/** Node's error codes for a connection that never opened, and what each means. */
const UNREACHABLE_CAUSES: Array<[RegExp, string]> = [
  [/^ECONNREFUSED$/, "connection refused (ECONNREFUSED): nothing listens there"],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME)$/, "DNS lookup failed"],
  [/CERT|^ERR_TLS|^ERR_SSL|SELF_SIGNED|^UNABLE_TO_|^EPROTO$/, "TLS handshake failed"],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, "no route to the host"],
];

/** A failure with no HTTP answer: refused, DNS, TLS (unreachable, retried once) or broken/timed out (network). */
function connectionError(sdk: SdkError, context: ErrorContext): ProviderError {
  const cause = rootCause(sdk);
  const code = cause.code ?? "";
  const unreachable = UNREACHABLE_CAUSES.find(([pattern]) => pattern.test(code));
  if (unreachable) {
    const detail = unreachable[1].includes(code)
      ? unreachable[1]
      : `${unreachable[1]} (${code}${cause.message && !cause.message.includes(code) ? `: ${cause.message}` : ""})`;
    return new ProviderError("unreachable", `cannot reach ${where(context)}: ${detail}`, { cause: sdk });
  }
  const timedOut = sdk.name === "APIConnectionTimeoutError" || /timed? ?out/i.test(sdk.message ?? "");
  const what = timedOut
    ? "the request timed out"
    : code
      ? `${cause.message || "connection failed"} (${code})`
      : errorDetail(sdk) || "connection failed";
  return new ProviderError("network", `cannot reach ${where(context)}: ${what}`, { cause: sdk });
}

/** The innermost error with a `code` (Node's socket errors carry it themselves; fetch wrapped them in `cause`). */
function rootCause(error: unknown): { code?: string; message?: string } {
  let found: { code?: string; message?: string } = {};
  for (
    let current = error as { code?: unknown; message?: string; cause?: unknown } | undefined, depth = 0;
    current && depth < 6;
    current = current.cause as typeof current, depth++
  ) {
    if (typeof current.code === "string") found = { code: current.code, message: current.message };
  }
  return found;
}

/** The error's `type`: OpenAI's SDK hands over the inner error object, Anthropic's the whole `{type: "error", error: {type}}` body. */
function errorType(body: unknown): string {
  const inner = innerError(body);
  return typeof inner?.type === "string" ? inner.type : "";
}

/** The error's string `code` (OpenAI puts `context_length_exceeded` there, not in the message). */
function errorCode(body: unknown): string {
  const inner = innerError(body);
  return typeof inner?.code === "string" ? inner.code : "";
}

function innerError(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== "object") return undefined;
  const outer = body as Record<string, unknown>;
  return outer.error && typeof outer.error === "object" ? (outer.error as Record<string, unknown>) : outer;
}

function where(context: ErrorContext): string {
  return `${context.provider} (${context.baseUrl})`;
}

function describe(kind: ProviderErrorKind, status: number | undefined, detail: string, context: ErrorContext): string {
  const code = status ? `${status} ` : "";
  switch (kind) {
    case "auth":
      if (context.signIn)
        return `${code}${where(context)} refused the ${context.signIn} sign-in: run harness login ${context.signIn}. ${detail}`.trim();
      return context.keyEnv
        ? `${code}authentication failed at ${where(context)}: check ${context.keyEnv} (or HARNESS_API_KEY). ${detail}`.trim()
        : `${code}authentication failed at ${where(context)}: set HARNESS_API_KEY. ${detail}`.trim();
    case "not_found":
      if (!MODEL_NOT_FOUND.test(detail) && !detail.includes(context.model))
        return `${code}${where(context)} has no such route: it does not serve the ${context.api} API there (check --api and --base-url). ${detail}`.trim();
      return `${code}model "${context.model}" not found at ${where(context)} (check --model). ${detail}`.trim();
    case "network":
    case "unreachable":
      return `cannot reach ${where(context)}: ${detail || "connection failed"}`;
    case "context_overflow":
      return `${code}the conversation is too long for ${context.model}: ${detail}`;
    case "rate_limit":
    case "overloaded":
    case "server":
    case "transient":
    case "not_api":
    case "quota":
    case "bad_request":
    case "timeout":
    case "too_large":
    case "aborted":
      return `${code}${where(context)}: ${detail || kind}`.trim();
    default:
      return assertNever(kind);
  }
}

function errorDetail(sdk: SdkError): string {
  const nested = innerError(sdk.error);
  const message = nested && typeof nested.message === "string" ? nested.message : undefined;
  const raw = stripStatus(sdk.message ?? "");
  const cause = (sdk as { cause?: { message?: string; code?: string } }).cause;
  const text = message ?? (raw || cause?.message || "");
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}

function stripStatus(message: string): string {
  return message.replace(/^\d{3} /, "");
}

/**
 * The body of an HTTP error that was not JSON (an HTML page from a proxy or a web server, plain
 * text), as the SDKs put it in the message; undefined when the body was JSON or absent.
 */
function nonJsonBody(sdk: SdkError, status: number | undefined): string | undefined {
  if (status === undefined || sdk.status === undefined || sdk.error !== undefined) return undefined;
  const body = stripStatus(sdk.message ?? "");
  if (!body || /status code \(no body\)/.test(body)) return undefined;
  return body;
}

/** A numeric HTTP status inside an error payload: `status_code`, `status` or a numeric `code`, on the payload or its `error`. */
function numericStatus(body: unknown): number | undefined {
  for (const object of [body, innerError(body)]) {
    if (!object || typeof object !== "object") continue;
    for (const key of ["status_code", "status", "code"]) {
      const value = (object as Record<string, unknown>)[key];
      if (typeof value === "number" && value >= 400 && value < 600) return value;
    }
  }
  return undefined;
}
