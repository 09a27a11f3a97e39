import type { AgentEvent, RunResult } from "../../core/events.ts";
import { assertNever } from "../../core/messages.ts";

/** `--output`: plain text for people, one JSON object at the end, or one JSON event per line. */
export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** `--format`: json and stream-json as harness's versioned events (docs/events.md), or as Claude Code's messages (claude-output.ts). */
export const JSON_FORMATS = ["harness", "claude"] as const;

/** Writes events as JSON for scripts: every event (`stream-json`) or only the final one (`json`). */
export function writeJsonEvent(
  format: Exclude<OutputFormat, "text">,
  event: AgentEvent,
  stdout: NodeJS.WritableStream,
): void {
  if (format === "stream-json" || event.type === "done") stdout.write(`${JSON.stringify(event)}\n`);
}

/**
 * The contract's exit codes: 0 finished, 1 failed, 3 max turns, 130 interrupted; 2 for a prompt
 * a UserPromptSubmit hook refused. *Decision*: 2, not 1, because 1 tells a script to retry (API,
 * network) and the same prompt is refused again; like a settings file that stops a headless run,
 * it is the user's own policy rejecting the input before anything was sent.
 */
export function exitCodeFor(result: RunResult): number {
  if (result.blockedBy) return 2;
  switch (result.reason) {
    case "stop":
      return 0;
    case "error":
      return 1;
    case "max_turns":
      return 3;
    case "aborted":
      return 130;
    default:
      return assertNever(result.reason);
  }
}
