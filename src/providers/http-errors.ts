import { parseRetryAfter, ProviderError, type ProviderErrorKind } from "../core/provider.ts";

/** What an error message needs to say which setting to fix. */
export interface ErrorContext {
  provider: string;
  model: string;
  baseUrl: string;
  /** The environment variable the key comes from, if any. */
  keyEnv?: string;
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
 * Maps an SDK or network failure to a ProviderError with a one-line message a user can act on.
 * Mid-stream errors (a JSON `error` object in an SSE payload) arrive here too, with no status.
 */
export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const sdk = (error ?? {}) as SdkError;
  const detail = errorDetail(sdk);
  const status = sdk.status ?? numericCode(sdk.error);
  const kind = classify(status, sdk, detail);
  const retryAfterMs = parseRetryAfter(sdk.headers);
  return new ProviderError(kind, describe(kind, status, detail, context), { status, retryAfterMs, cause: error });
}

function classify(status: number | undefined, sdk: SdkError, detail: string): ProviderErrorKind {
  const type = errorType(sdk.error);
  if (sdk.name === "APIUserAbortError" || sdk.name === "AbortError") return "aborted";
  if (status === 401 || status === 403 || type === "authentication_error" || type === "permission_error") return "auth";
  if (CONTEXT_OVERFLOW.test(`${detail} ${type} ${errorCode(sdk.error)}`)) return "context_overflow";
  // A body too large in bytes (Anthropic's 413 request_too_large) is cured the same way.
  if (status === 413 || type === "request_too_large") return "context_overflow";
  if (status === 404 || type === "not_found_error") return "not_found";
  if (status === 429 || type === "rate_limit_error") return "rate_limit";
  if (status === 529 || type === "overloaded_error") return "overloaded";
  if (status !== undefined && status >= 500) return "server";
  if (type === "api_error" || type === "server_error") return "server";
  if (status === undefined) return sdk.error ? "server" : "network";
  return "bad_request";
}

/** The error's `type`: OpenAI's SDK hands over the inner error object, Anthropic's the whole `{type: "error", error: {type}}` body. */
function errorType(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const outer = body as Record<string, unknown>;
  const inner = outer.error && typeof outer.error === "object" ? (outer.error as Record<string, unknown>) : outer;
  return typeof inner.type === "string" ? inner.type : "";
}

/** The error's string `code` (OpenAI puts `context_length_exceeded` there, not in the message). */
function errorCode(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const outer = body as Record<string, unknown>;
  const inner = outer.error && typeof outer.error === "object" ? (outer.error as Record<string, unknown>) : outer;
  return typeof inner.code === "string" ? inner.code : "";
}

function describe(kind: ProviderErrorKind, status: number | undefined, detail: string, context: ErrorContext): string {
  const where = `${context.provider} (${context.baseUrl})`;
  const code = status ? `${status} ` : "";
  switch (kind) {
    case "auth":
      return context.keyEnv
        ? `${code}authentication failed at ${where}: check ${context.keyEnv} (or HARNESS_API_KEY). ${detail}`.trim()
        : `${code}authentication failed at ${where}: set HARNESS_API_KEY. ${detail}`.trim();
    case "not_found":
      return `${code}model "${context.model}" not found at ${where} (check --model). ${detail}`.trim();
    case "network":
      return `cannot reach ${where}: ${detail || "connection failed"}`;
    case "context_overflow":
      return `${code}the conversation is too long for ${context.model}: ${detail}`;
    default:
      return `${code}${where}: ${detail || kind}`.trim();
  }
}

function errorDetail(sdk: SdkError): string {
  const body = sdk.error as Record<string, unknown> | undefined;
  const nested = body && typeof body === "object" ? ((body.error as Record<string, unknown> | undefined) ?? body) : undefined;
  const message = nested && typeof nested.message === "string" ? nested.message : undefined;
  const raw = stripStatus(sdk.message ?? "");
  const cause = (sdk as { cause?: { message?: string; code?: string } }).cause;
  const text = message ?? (raw || cause?.message || "");
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}

function stripStatus(message: string): string {
  return message.replace(/^\d{3} /, "");
}

function numericCode(body: unknown): number | undefined {
  if (!body || typeof body !== "object") return undefined;
  const code = (body as Record<string, unknown>).code ?? (body as Record<string, unknown>).status_code;
  return typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
}
