// The OpenAI Responses API adapter (`POST /responses`, post-json.ts). Codex
// speaks only this API, and OpenAI's reasoning models keep their reasoning across turns only here.
import type { ModelRequest, Provider, ProviderError } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { type ErrorContext, errorContextFor, toProviderError } from "../http-errors.ts";
import { endpoint } from "../post-json.ts";
import { openAIHeaders } from "../request-headers.ts";
import { type ReplyIds, StateKeeper, stateProvider } from "../server-state.ts";
import { signedPost } from "../sign-in/sign-in-headers.ts";
import { planWith } from "../thinking-levels.ts";
import { type WireFormat, wireProvider } from "../wire-reply.ts";
import { responsesThinking, toResponsesRequest } from "./openai-responses-request.ts";
import {
  ResponsesStreamAccumulator,
  type ResponsesStreamEvent,
  toStreamEvents,
  type WireResponse,
} from "./openai-responses-stream.ts";
import { STORED_RESPONSES } from "./stored-responses.ts";

export function createOpenAIResponsesProvider(settings: AdapterSettings): Provider {
  const errorContext = errorContextFor(settings, "OpenAI Responses");
  const url = endpoint(settings.baseUrl, "responses");
  const headers = openAIHeaders(settings);
  const thinking = planWith(responsesThinking, settings).fields;

  const toBody = (request: ModelRequest) => toResponsesRequest(request, settings.model, thinking);
  if (!settings.serverState)
    return wireProvider(settings, errorContext, RESPONSES_FORMAT, (request, signal) =>
      signedPost(settings, url, headers, toBody(request), signal),
    );

  // Stored responses (stored-responses.ts): resolve-provider.ts turned them on for this endpoint and model.
  const ids: ReplyIds<ResponsesStreamEvent> = {
    ofEvent: (event) =>
      event.type === "response.created" || event.type === "response.completed" ? event.response?.id : undefined,
    ofWhole: (body) => (body as WireResponse | undefined)?.id,
  };
  return stateProvider(
    settings,
    errorContext,
    { ...RESPONSES_FORMAT, ...ids },
    new StateKeeper(STORED_RESPONSES),
    toBody,
    (body, signal) => signedPost(settings, url, headers, body, signal),
  );
}

/** How Responses replies fold into a message. */
const RESPONSES_FORMAT: WireFormat<ResponsesStreamEvent> = {
  newAccumulator: () => new ResponsesStreamAccumulator(),
  /** One plain JSON response, as the events that would have streamed it. */
  eventsOfWhole(body, context) {
    const whole = body as WireResponse & { error?: unknown };
    if (whole.status === "failed" || (whole.error && !whole.status)) throw failure(whole.error, context);
    return toStreamEvents(whole);
  },
  /** An `error` event or a failed response ends the stream with its error. */
  checkEvent(event, _sseName, context) {
    const wire = event as ResponsesStreamEvent & { error?: unknown; code?: unknown; message?: unknown };
    if (wire?.type === "error") throw failure(wire.error ?? wire, context);
    if (wire?.type === "response.failed") throw failure(wire.response?.error, context);
  },
};

/**
 * An `error` event or a failed response, classified for retry like an HTTP error. A stream
 * carries no status, so the error's `code` gives the type http-errors.ts reads: the documented
 * codes are a rate limit, a server failure, or a bad request (`invalid_prompt`, the image
 * codes); `insufficient_quota` and `context_length_exceeded` are known there by name.
 */
function failure(error: unknown, context: ErrorContext): ProviderError {
  const wire = (error && typeof error === "object" ? error : {}) as Record<string, unknown>;
  const type = wire.type ?? typeOfCode(wire.code);
  return toProviderError(
    { error: { ...wire, ...(type ? { type } : {}), message: wire.message ?? "the response failed" } },
    context,
  );
}

/** The error type a Responses error code amounts to; unknown codes count as a server failure (retried). */
function typeOfCode(code: unknown): string | undefined {
  if (typeof code !== "string") return undefined;
  if (code === "rate_limit_exceeded") return "rate_limit_error";
  if (code === "insufficient_quota") return code;
  if (/^(invalid_|image_|unsupported_|empty_image|failed_to_download_image)/.test(code)) return "invalid_request_error";
  return undefined;
}
