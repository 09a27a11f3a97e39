import { sleep } from "../shared/helpers.ts";
import { WellFormedStream } from "../shared/well-formed.ts";
import type { AgentEvent } from "./events.ts";
import { type AssistantMessage, assertNever } from "./messages.ts";
import { type ModelRequest, type Provider, ProviderError } from "./provider.ts";

/** Retry policy for failed model calls: 429, 5xx, overloaded and dropped connections. */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000 };
/** No server gets to park us longer than this per retry, whatever its retry-after says. */
const MAX_RETRY_DELAY_MS = 60_000;

/**
 * Streams one model reply, retrying retryable failures with exponential backoff that honours
 * `retry-after` (how often, per kind of failure: RETRIES_BY_KIND). Deltas are passed on as they
 * come, so the user sees the reply being written; when an attempt that had already shown some
 * fails, its `retry` event carries `discardPartial: true`, which tells every consumer that the
 * deltas since the turn began are void and the next attempt starts the reply over. We chose
 * that over holding every delta back until an attempt completes, which would end streaming.
 * On abort it returns what arrived so far as an `aborted` message (text only: half-streamed
 * tool calls are dropped, since they were never run). Deltas are made well-formed on the way
 * (shared/well-formed.ts): a lone surrogate in a reply goes to no consumer; the agent loop does the
 * same for the reply itself.
 */
export async function* callModel(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal,
  retry: RetryPolicy,
): AsyncGenerator<AgentEvent, AssistantMessage> {
  for (let attempt = 1; ; attempt++) {
    let partialText = "";
    let hasShownDeltas = false;
    const wellFormedDeltas = { text_delta: new WellFormedStream(), thinking_delta: new WellFormedStream() };
    try {
      for await (const event of provider.stream(request, signal)) {
        switch (event.type) {
          case "text_delta":
          case "thinking_delta": {
            const text = wellFormedDeltas[event.type].push(event.text);
            if (event.type === "text_delta") partialText += text;
            hasShownDeltas = true;
            if (text) yield { type: event.type, text };
            break;
          }
          case "tool_call_delta":
            break;
          case "prompt_progress":
            yield event;
            break;
          case "call_usage":
            yield { type: "call_usage", usage: event.usage, model: provider.model };
            break;
          case "done":
            for (const type of ["thinking_delta", "text_delta"] as const) {
              const text = wellFormedDeltas[type].flush();
              if (text) yield { type, text };
            }
            return event.message;
          default:
            assertNever(event);
        }
      }
      throw new ProviderError("network", "the model's reply ended before it was complete");
    } catch (error) {
      if (signal.aborted) return abortedReply(partialText, provider.model);
      // Anything but a ProviderError is our own bug: surface it rather than retry it.
      if (!(error instanceof ProviderError)) throw error;
      const failure = error;
      if (attempt > failure.retriesAllowed(retry.maxRetries)) throw failure;
      const delayMs = retryDelay(failure, attempt, retry);
      yield {
        type: "retry",
        attempt,
        delayMs: Math.round(delayMs),
        error: failure.message,
        ...(hasShownDeltas ? { discardPartial: true as const } : {}),
      };
      await sleep(delayMs, signal);
      if (signal.aborted) return abortedReply("", provider.model);
    }
  }
}

function abortedReply(text: string, model: string): AssistantMessage {
  return { role: "assistant", content: text ? [{ type: "text", text }] : [], stopReason: "aborted", model };
}

function retryDelay(failure: ProviderError, attempt: number, retry: RetryPolicy): number {
  const backoff = retry.baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
  return Math.min(failure.retryAfterMs ?? backoff, MAX_RETRY_DELAY_MS);
}
