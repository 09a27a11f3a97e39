// The Anthropic Messages adapter: `POST /v1/messages` (post-json.ts).
import type { Provider } from "../core/provider.ts";
import { errorContextFor, toProviderError } from "./http-errors.ts";
import type { ProviderSettings } from "./index.ts";
import { endpoint, postJson } from "./post-json.ts";
import { anthropicHeaders } from "./request-headers.ts";
import { planThinking } from "./thinking.ts";
import { type WireFormat, wireProvider } from "./wire-reply.ts";
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

  return wireProvider(settings, errorContext, ANTHROPIC_FORMAT, (request, signal) =>
    postJson(url, headers, toAnthropicRequest(request, settings.model, thinking, serverTools), signal),
  );
}

/** How Anthropic Messages replies fold into a message. */
const ANTHROPIC_FORMAT: WireFormat<AnthropicStreamEvent> = {
  newAccumulator: () => new AnthropicStreamAccumulator(),
  /** One plain JSON message, as the events that would have streamed it. */
  eventsOfWhole(body, context) {
    const reply = body as WireMessageReply & { type?: string };
    if (reply.type === "error") throw toProviderError({ error: reply }, context);
    return toStreamEvents(reply);
  },
  /** `event: error` mid-stream ({"type":"error","error":{"type":"overloaded_error",...}}). */
  checkEvent(event, sseName, context) {
    if (sseName === "error" || event?.type === "error") throw toProviderError({ error: event }, context);
  },
};
