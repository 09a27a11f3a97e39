// The Anthropic Messages adapter: `POST /v1/messages` over fetch (post-json.ts).
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import { errorContextFor, toProviderError, type ErrorContext } from "./http-errors.ts";
import type { ProviderSettings } from "./index.ts";
import { anthropicHeaders, endpoint, postJson } from "./post-json.ts";
import { planThinking } from "./thinking.ts";
import { streamWireReply } from "./wire-reply.ts";
import { serverToolsFor, toAnthropicRequest } from "./anthropic-request.ts";
import {
  AnthropicStreamAccumulator,
  toStreamEvents,
  type AnthropicStreamEvent,
  type WireMessageReply,
} from "./anthropic-stream.ts";

export function createAnthropicProvider(settings: ProviderSettings): Provider {
  const errorContext = errorContextFor(
    { ...settings, keyEnv: settings.keyEnv ?? "ANTHROPIC_API_KEY" },
    "Anthropic Messages",
  );
  const thinking = planThinking(settings).fields;
  const serverTools = serverToolsFor(settings);
  // A pasted `.../v1` base would double the version in the path.
  const url = endpoint(settings.baseUrl.replace(/\/v1\/?$/, ""), "v1/messages");
  const headers = anthropicHeaders(settings);

  return {
    name: settings.name,
    model: settings.model,
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      return streamWireReply(
        {
          settings,
          context: errorContext,
          accumulator: new AnthropicStreamAccumulator(),
          async open(callSignal) {
            const body = toAnthropicRequest(request, settings.model, thinking, serverTools);
            return postJson(url, headers, body, callSignal);
          },
          eventsOfWhole,
          checkEvent,
        },
        signal,
      );
    },
  };
}

/** One plain JSON message, as the events that would have streamed it. */
function eventsOfWhole(body: unknown, context: ErrorContext): AnthropicStreamEvent[] {
  const reply = body as WireMessageReply & { type?: string };
  if (reply.type === "error") throw toProviderError({ error: reply }, context);
  return toStreamEvents(reply);
}

/** `event: error` mid-stream ({"type":"error","error":{"type":"overloaded_error",...}}). */
function checkEvent(event: AnthropicStreamEvent, sseName: string | undefined, context: ErrorContext): void {
  if (sseName === "error" || event?.type === "error") throw toProviderError({ error: event }, context);
}
