// Server-sent events off an HTTP reply (post-json.ts), for every wire API. Our own reader rather than the
// SDKs': we need to know whether a stream ended with `[DONE]`, to tell an answer that is not an
// event stream at all from one that was cut, and no SDK logging of bad lines onto our stderr.
import { ProviderError } from "../core/provider.ts";
import { type ErrorContext, notApiError } from "./http-errors.ts";
import type { HttpReply } from "./post-json.ts";

/** One dispatched event: `event` is the `event:` field when the server sent one. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Characters of a body kept to describe it when it turns out not to be an event stream. */
const MAX_SNIFF_CHARS = 2000;

/**
 * The events of a streamed body (WHATWG framing: lines end in LF, CRLF or CR; `:` lines are
 * comments; one space after `data:` is dropped; a blank line dispatches). Lenient in one way:
 * an event left unterminated at the end of the body is still dispatched, as real servers and
 * proxies drop the last blank line. A body with no event at all is not an event stream: that
 * throws a `not_api` error naming what came instead.
 */
export async function* readSse(response: HttpReply, context: ErrorContext): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let sniff = "";
  let dispatched = 0;
  let data: string[] = [];
  let event: string | undefined;
  let hasField = false;

  function* dispatch(): Generator<SseEvent> {
    if (hasField && data.length > 0) {
      dispatched++;
      yield { ...(event ? { event } : {}), data: data.join("\n") };
    }
    data = [];
    event = undefined;
    hasField = false;
  }

  function* takeLines(final: boolean): Generator<SseEvent> {
    for (let end = lineEnd(buffer); end >= 0; end = lineEnd(buffer)) {
      // A CR at the very end of the buffer may be the first half of a CRLF split across reads.
      if (!final && buffer[end] === "\r" && end === buffer.length - 1) break;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer[end] === "\r" && buffer[end + 1] === "\n" ? 2 : 1));
      if (line === "") {
        yield* dispatch();
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") {
        data.push(value);
        hasField = true;
      } else if (field === "event") event = value;
    }
  }

  for await (const bytes of response.body) {
    const text = decoder.decode(bytes, { stream: true });
    if (sniff.length < MAX_SNIFF_CHARS) sniff += text.slice(0, MAX_SNIFF_CHARS - sniff.length);
    buffer += text;
    yield* takeLines(false);
  }
  buffer += decoder.decode();
  if (buffer) buffer += "\n";
  yield* takeLines(true);
  yield* dispatch();
  if (dispatched === 0 && sniff.trim())
    throw notApiError(
      context,
      `${response.status} (${response.headers.get("content-type") || "no content type"}) but no event stream`,
      sniff,
    );
}

function lineEnd(text: string): number {
  const lf = text.indexOf("\n");
  const cr = text.indexOf("\r");
  if (cr < 0) return lf;
  if (lf < 0) return cr;
  return Math.min(lf, cr);
}

/** Characters of a malformed event quoted in the error. */
const MAX_QUOTED_EVENT_CHARS = 200;

/** An event's JSON payload. A malformed one is the server's fault (or a proxy's that cut it): retried. */
export function parseEvent(data: string, context: ErrorContext): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError(
      "server",
      `${context.provider} (${context.baseUrl}) sent an event that is not JSON: ${data.slice(0, MAX_QUOTED_EVENT_CHARS)}`,
    );
  }
}
