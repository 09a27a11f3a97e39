// The one point where a session's events are transformed before anyone sees them (the recorder,
// the terminal, JSON output, an editor): keys redacted (core/stream-redactor.ts), then, with the
// debug log on (shared/debug-log.ts), each tool call's end, retry and run's end logged. The
// requests themselves are logged where they are sent (providers/post-json.ts).
import type { AgentEvent } from "../core/events.ts";
import { redactEvents } from "../core/stream-redactor.ts";
import { debugLog, isDebugLogOn } from "../shared/debug-log.ts";

/** `events` with `secrets` redacted, and logged when the debug log is on. */
export function outgoingEvents<R>(
  events: AsyncGenerator<AgentEvent, R>,
  secrets: readonly string[],
): AsyncGenerator<AgentEvent, R> {
  const redacted = redactEvents(events, secrets);
  return isDebugLogOn() ? logging(redacted) : redacted;
}

async function* logging<R>(events: AsyncGenerator<AgentEvent, R>): AsyncGenerator<AgentEvent, R> {
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) return next.value;
      logEvent(next.value);
      yield next.value;
    }
  } finally {
    await events.return(undefined as R); // a consumer that stopped early stops the run too
  }
}

function logEvent(event: AgentEvent): void {
  switch (event.type) {
    case "tool_end":
      return debugLog(
        "tools",
        `${event.name} ${event.id} ${event.isError ? "failed" : "done"} in ${event.durationMs} ms`,
      );
    case "retry":
      return debugLog("api", `retry ${event.attempt} in ${event.delayMs} ms: ${event.error}`);
    case "done":
      return debugLog(
        "run",
        `${event.reason} after ${event.turns} turns; ${event.usage.input} tokens in, ${event.usage.output} out${event.error ? `; ${event.error}` : ""}`,
      );
    default:
      return;
  }
}
