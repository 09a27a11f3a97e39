import type { z } from "zod";
import type { agentEventSchema, doneReasonSchema } from "./event-schema.ts";

/** How a run ended. Every way out of the loop is one of these values. */
export type DoneReason = z.infer<typeof doneReasonSchema>;

/**
 * What the loop emits, as plain JSON-serialisable data. The terminal, `--output stream-json`,
 * the session writer and the editor bridge all consume this one stream. The shape is declared
 * once, as a zod schema in event-schema.ts (documented in docs/events.md); add or change
 * events there.
 */
export type AgentEvent = z.infer<typeof agentEventSchema>;

/** The final `done` event, which is also what a run returns. */
export type RunResult = Extract<AgentEvent, { type: "done" }>;
