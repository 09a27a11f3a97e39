// The Anthropic Messages adapter, on the official `@anthropic-ai/sdk` client.
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import { sdkTimeoutMs } from "./call-limits.ts";
import { errorContextFor, toProviderError, type ErrorContext } from "./http-errors.ts";
import type { ProviderSettings } from "./index.ts";
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
  // Passed even when absent, so the SDK never looks for credentials of its own (env, profiles).
  const apiKey = settings.apiKey || "no-key";
  const thinking = planThinking(settings).fields;
  const serverTools = serverToolsFor(settings);
  let client: Promise<import("@anthropic-ai/sdk").Anthropic> | undefined;
  const getClient = () =>
    (client ??= import("@anthropic-ai/sdk").then(
      ({ Anthropic }) =>
        new Anthropic({
          apiKey,
          // The SDK adds `/v1/messages`; a pasted `.../v1` base would double it.
          baseURL: settings.baseUrl.replace(/\/v1\/?$/, ""),
          // This SDK sends the key as `Authorization: Bearer`; `x-api-key` is the header the API
          // documents and Anthropic-compatible servers read. Headers from settings win over both.
          defaultHeaders: { authorization: null, "x-api-key": apiKey, ...settings.headers },
          maxRetries: 0, // the loop retries, so it can report each retry as an event
          timeout: sdkTimeoutMs(settings),
        }),
    ));

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
            const anthropic = await getClient();
            const body = toAnthropicRequest(request, settings.model, thinking, serverTools);
            // `post` rather than `messages.create`: the latter console.warns on every call for models
            // it deems deprecated, and stderr is ours. asResponse() lets us see a plain-JSON answer.
            return anthropic.post("/v1/messages", { body, stream: true, signal: callSignal }).asResponse();
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
