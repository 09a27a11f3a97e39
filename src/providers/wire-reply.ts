// One model call on a wire API whose stream folds into a reply without extra end handling (Anthropic
// Messages, OpenAI Responses): open the request under the call's bounds, fold its events, and say why a
// reply is missing. Chat completions keeps its own loop: it also ends on `[DONE]` and recovers tool calls
// written as text.
import type { AssistantMessage } from "../core/messages.ts";
import type { ModelEvent } from "../core/provider.ts";
import { ProviderError } from "../core/provider.ts";
import { CallWatch } from "./call-limits.ts";
import { toProviderError, type ErrorContext } from "./http-errors.ts";
import type { ProviderSettings } from "./index.ts";
import { parseEvent, readSse } from "./sse.ts";

export interface WireAccumulator<Event> {
  add(event: Event): ModelEvent[];
  readonly isComplete: boolean;
  finish(): AssistantMessage;
}

export interface WireReply<Event> {
  settings: ProviderSettings;
  context: ErrorContext;
  accumulator: WireAccumulator<Event>;
  /** Sends the request; `signal` carries the user's interrupt and the call's bounds. */
  open(signal: AbortSignal): Promise<Response>;
  /** A whole reply sent as one plain JSON body (no stream), as the events that would have streamed it; throws when it is an error. */
  eventsOfWhole(body: unknown, context: ErrorContext): Event[];
  /** Throws when a streamed event (`sseName`: its SSE `event:` field) reports an error. */
  checkEvent(event: Event, sseName: string | undefined, context: ErrorContext): void;
}

export async function* streamWireReply<Event>(reply: WireReply<Event>, signal: AbortSignal): AsyncIterable<ModelEvent> {
  const { settings, context, accumulator } = reply;
  const watch = new CallWatch(signal, settings, `${settings.name} (${settings.baseUrl})`);
  try {
    const response = await reply.open(watch.signal);
    for await (const event of readEvents(watch.body(response), reply)) {
      for (const modelEvent of accumulator.add(event)) yield modelEvent;
    }
  } catch (error) {
    throw watch.failure ?? toProviderError(error, context);
  } finally {
    watch.close();
  }
  // A bound's abort may end the stream quietly rather than with an error.
  if (watch.failure) throw watch.failure;
  if (signal.aborted) throw new ProviderError("aborted", "interrupted");
  if (!accumulator.isComplete)
    throw new ProviderError("network", `the connection to ${settings.name} dropped before the reply was complete`);
  yield { type: "done", message: accumulator.finish() };
}

/** The events of a reply: SSE, or one plain JSON body turned into the events that would have streamed it. */
async function* readEvents<Event>(response: Response, reply: WireReply<Event>): AsyncIterable<Event> {
  const { context } = reply;
  if ((response.headers.get("content-type") ?? "").includes("application/json")) {
    yield* reply.eventsOfWhole(await response.json(), context);
    return;
  }
  for await (const sse of readSse(response, context)) {
    const event = parseEvent(sse.data, context) as Event;
    reply.checkEvent(event, sse.event, context);
    yield event;
  }
}
