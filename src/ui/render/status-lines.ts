// The one-line texts the renderer says about the run itself (not the model's words nor a tool's
// output): kept apart so the renderer is about where things go on the screen, not what they say.
import type { CompactionEvent } from "../../core/compaction.ts";
import type { AgentEvent } from "../../core/events.ts";
import { formatDuration, formatTokens } from "../../shared/helpers.ts";

/** Why a compaction ran, by its event's reason. */
const COMPACTION_CAUSES: Record<CompactionEvent["reason"], string> = {
  manual: "on request",
  overflow: "the server said it was too long",
  threshold: "near the window's limit",
};

export function compactionLine(event: CompactionEvent): string {
  const cause = COMPACTION_CAUSES[event.reason];
  return `context compacted: ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens (${cause})`;
}

export function retryLine(event: Extract<AgentEvent, { type: "retry" }>): string {
  return `retrying in ${formatDuration(event.delayMs)} (attempt ${event.attempt}): ${event.error}`;
}
