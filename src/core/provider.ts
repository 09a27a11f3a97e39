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
  | { type: "done"; message: AssistantMessage };

/** A model behind some wire API. Translators live in the adapter; this is all the loop knows. */
export interface Provider {
  /** Provider name as the user chose it (`openai`, `openrouter`, a custom name...). */
  readonly name: string;
  readonly model: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/** The kinds of failure a provider reports; the loop decides retries from `retryable`. */
export type ProviderErrorKind =
  | "auth"
  | "not_found"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "network"
  | "context_overflow"
  | "bad_request"
  | "aborted";

/** A failed model call with a one-line, actionable message. */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** Server-requested wait before retrying (`retry-after`), in ms. */
  readonly retryAfterMs?: number;

  constructor(kind: ProviderErrorKind, message: string, options: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  get retryable(): boolean {
    return this.kind === "rate_limit" || this.kind === "overloaded" || this.kind === "server" || this.kind === "network";
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
