import type { AssistantMessage, Message, Usage } from "./messages.ts";

/** A tool as the model sees it: the JSON Schema comes from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Everything one model call needs, in neutral form. */
export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /** Output cap; the provider picks a per-model default when absent. */
  maxTokens?: number;
}

/**
 * What a provider streams while the model replies. The stream ends with exactly one
 * `done` carrying the complete assistant message (deltas are for display only).
 */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  | { type: "tool_call_delta"; index: number; id?: string; name?: string }
  /** How many of the prompt's tokens the model has read, before its first output (an in-process model on a CPU). */
  | { type: "prompt_progress"; done: number; total: number }
  /** The call's tokens as the server counts them before its reply is complete (Anthropic's message_start). */
  | { type: "call_usage"; usage: Usage }
  | { type: "done"; message: AssistantMessage };

/** A model behind some wire API. Translators live in the adapter; this is all the loop knows. */
export interface Provider {
  /** Provider name as the user chose it (`openai`, `openrouter`, a custom name...). */
  readonly name: string;
  readonly model: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/**
 * The kinds of failure a provider reports. `transient` is a 408 or 409 (the server asks for the
 * same request again); `unreachable` is a connection that never opened (refused, DNS, TLS);
 * `network` is one that broke; `not_api` is an endpoint that answered, but not in the API's
 * language (an HTML page, plain text).
 */
export type ProviderErrorKind =
  | "auth"
  | "not_found"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "transient"
  | "network"
  | "unreachable"
  | "not_api"
  | "context_overflow"
  /** Quota or credit used up (`insufficient_quota`): no wait cures it, another provider may serve (--fallback-model). */
  | "quota"
  | "bad_request"
  /** A bound of the call passed: the idle or the request timeout. Not retried: the user chose how long to wait. */
  | "timeout"
  /** The reply passed the most bytes one reply may have. Not retried: it would only come again. */
  | "too_large"
  | "aborted";

/**
 * How often the loop retries each kind: `"max"` = up to the RetryPolicy's `maxRetries`, a number
 * caps it lower. The table in docs/events.md ("Retries") states the same, and a test holds the
 * two together. A refused connection gets one more try (a server that is just restarting), not
 * four: nothing listening now will rarely listen 15 s later. A context overflow is not retried
 * as such; the loop compacts the conversation and tries once more.
 */
export const RETRIES_BY_KIND: Record<ProviderErrorKind, "max" | number> = {
  rate_limit: "max",
  overloaded: "max",
  server: "max",
  transient: "max",
  network: "max",
  unreachable: 1,
  auth: 0,
  not_found: 0,
  not_api: 0,
  context_overflow: 0,
  quota: 0,
  bad_request: 0,
  timeout: 0,
  too_large: 0,
  aborted: 0,
};

/**
 * The failures another provider may get past (`--fallback-model`), once the call's own retries
 * are spent: overload, a rate limit past its retries, used-up quota, a provider that cannot be
 * reached. Judged by the kind, which comes from the error's type and code (http-errors.ts), not
 * by the status alone. Never auth (the next would fail as its own key does, or it hides a typo),
 * nor a refused request or a context overflow (the same request would be refused again, or it is
 * a bug to see), nor a server error (a 500 is often the request's fault).
 */
const FALLBACK_KINDS: ReadonlySet<ProviderErrorKind> = new Set(["overloaded", "rate_limit", "quota", "unreachable"]);

/** A failed model call with a one-line, actionable message. */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** Server-requested wait before retrying (`retry-after`), in ms. */
  readonly retryAfterMs?: number;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether the session may go on with its next fallback model (FALLBACK_KINDS). */
  get fallsBack(): boolean {
    return FALLBACK_KINDS.has(this.kind);
  }

  get retryable(): boolean {
    return RETRIES_BY_KIND[this.kind] !== 0;
  }

  /** How many retries this failure gets under a policy allowing `maxRetries`. */
  retriesAllowed(maxRetries: number): number {
    const limit = RETRIES_BY_KIND[this.kind];
    return limit === "max" ? maxRetries : Math.min(limit, maxRetries);
  }
}

/** Reads `retry-after` (seconds or HTTP date) and `retry-after-ms` headers. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms)) return Math.max(0, ms);
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export type { Usage };
