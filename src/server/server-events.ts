// What `harness serve` streams about one session: the run's own events, exactly as docs/events.md
// defines them (one schema for stream-json, ACP and the server), and a few of the server's own,
// for what only a served session has (a question several clients see, a model switch, an undo).
import type { AgentEvent } from "../core/events.ts";

/** A permission question the session's policy put, waiting for the first client's answer. */
export interface QuestionEvent {
  type: "question";
  questionId: string;
  /** The call's id (its `tool_start` / `tool_end` carry it). */
  callId: string;
  tool: string;
  /** The one-line trace of the call (`bash> ls`). */
  summary: string;
  why?: string;
  diff?: string;
  /** What "always" would allow for the rest of the session; empty: "always" is not offered. */
  remember: string[];
  /** Only this once: no "always", mode or rule covers it. */
  explicit?: true;
}

/** How a question was settled: a client's answer, or `cancelled` (the run was interrupted). */
export type QuestionOutcome = "yes" | "no" | "always" | "cancelled";

/** The server's own events, beside the run's. */
type ServerOwnEvent =
  | QuestionEvent
  | { type: "question_answered"; questionId: string; answer: QuestionOutcome }
  | { type: "model_changed"; provider: string; model: string; notes: string[] }
  | { type: "undone"; turns: number; files: string[] }
  /** A prompt's run could not start or failed outside the loop (its words). */
  | { type: "server_error"; error: string };

export type ServerEvent = AgentEvent | ServerOwnEvent;
