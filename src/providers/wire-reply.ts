// One model call on a wire API: open the request under the call's bounds (call-limits.ts), fold its
// events into a reply, and say why a reply is missing. Anthropic Messages and OpenAI Responses are a
// `WireFormat` each and get their whole provider from `wireProvider`; chat completions reads its own
// chunks (it also ends on `[DONE]` and recovers tool calls written as text) inside `watchedCall`.
import type { AssistantMessage } from "../core/messages.ts";
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider.ts";
import { type CallLimits, CallWatch } from "./call-limits.ts";
import { type ErrorContext, toProviderError } from "./http-errors.ts";
import type { HttpReply } from "./post-json.ts";
import { parseEvent, readSse } from "./sse.ts";

/** What a call needs of its provider's settings: the bounds, and the names its errors give. */
export type CallSettings = CallLimits & { name: string; model: string; baseUrl: string };

export interface WireAccumulator<Event> {
  add(event: Event): ModelEvent[];
  readonly isComplete: boolean;
  finish(): AssistantMessage;
}

/** How one wire API's replies fold into a message: the same for every call. */
export interface WireFormat<Event> {
  newAccumulator(): WireAccumulator<Event>;
  /** A whole reply sent as one plain JSON body (no stream), as the events that would have streamed it; throws when it is an error. */
  eventsOfWhole(body: unknown, context: ErrorContext): Event[];
  /** Throws when a streamed event (`sseName`: its SSE `event:` field) reports an error. */
  checkEvent(event: Event, sseName: string | undefined, context: ErrorContext): void;
}

/** One call, for `watchedCall`. */
export interface WatchedCall {
  settings: CallSettings;
  context: ErrorContext;
  /** Sends the request; `signal` carries the user's interrupt and the call's bounds. */
  open(signal: AbortSignal): Promise<HttpReply>;
  /** The model events of the reply, as it arrives. */
  fold(response: HttpReply): AsyncIterable<ModelEvent>;
  /** Whether the reply came to its end (a reply that stops before was cut). */
  isComplete(): boolean;
}

/** The provider of a wire API whose every call posts one request (`post`) and folds its reply by `format`. */
export function wireProvider<Event>(
  settings: CallSettings,
  context: ErrorContext,
  format: WireFormat<Event>,
  post: (request: ModelRequest, signal: AbortSignal) => Promise<HttpReply>,
): Provider {
  return {
    name: settings.name,
    model: settings.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const accumulator = format.newAccumulator();
      yield* watchedCall(
        {
          settings,
          context,
          open: (callSignal) => post(request, callSignal),
          async *fold(response) {
            for await (const event of readEvents(response, format, context)) yield* accumulator.add(event);
          },
          isComplete: () => accumulator.isComplete,
        },
        signal,
      );
      yield { type: "done", message: accumulator.finish() };
    },
  };
}

/**
 * Yields the reply's model events (not its `done`: the caller builds the message) and throws a
 * ProviderError when the call failed, passed a bound, was interrupted or its reply was cut short.
 */
export async function* watchedCall(call: WatchedCall, signal: AbortSignal): AsyncIterable<ModelEvent> {
  const { settings, context } = call;
  const watch = new CallWatch(signal, settings, `${settings.name} (${settings.baseUrl})`);
  try {
    const response = await call.open(watch.signal);
    yield* call.fold(watch.body(response));
  } catch (error) {
    throw watch.failure ?? toProviderError(error, context);
  } finally {
    watch.close();
  }
  // A bound's abort may end the stream quietly rather than with an error.
  if (watch.failure) throw watch.failure;
  if (signal.aborted) throw new ProviderError("aborted", "interrupted");
  if (!call.isComplete())
    throw new ProviderError("network", `the connection to ${settings.name} dropped before the reply was complete`);
}

/** The events of a reply: SSE, or one plain JSON body turned into the events that would have streamed it. */
async function* readEvents<Event>(
  response: HttpReply,
  format: WireFormat<Event>,
  context: ErrorContext,
): AsyncIterable<Event> {
  if ((response.headers.get("content-type") ?? "").includes("application/json")) {
    yield* format.eventsOfWhole(await response.json(), context);
    return;
  }
  for await (const sse of readSse(response, context)) {
    const event = parseEvent(sse.data, context) as Event;
    format.checkEvent(event, sse.event, context);
    yield event;
  }
}
