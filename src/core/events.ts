import type { Message, Usage } from "./messages.ts";

/** How a run ended. Every way out of the loop is one of these values. */
export type DoneReason = "stop" | "max_turns" | "aborted" | "error";

/**
 * What the loop emits, as plain JSON-serialisable data. The terminal, `--output stream-json`,
 * the session writer and the editor bridge all consume this one stream.
 */
export type AgentEvent =
  | { type: "start"; provider: string; model: string; sessionId?: string }
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A message was appended to the conversation (the session writer persists these). */
  | { type: "message"; message: Message }
  | { type: "tool_start"; id: string; name: string; arguments: string; summary: string }
  | {
      type: "tool_end";
      id: string;
      name: string;
      content: string;
      isError: boolean;
      summary?: string;
      diff?: string;
      durationMs: number;
    }
  | { type: "retry"; attempt: number; delayMs: number; error: string }
  | { type: "usage"; usage: Usage; total: Usage }
  | { type: "done"; reason: DoneReason; answer: string; turns: number; usage: Usage; error?: string };

/** The final `done` event, which is also what a run returns. */
export type RunResult = Extract<AgentEvent, { type: "done" }>;
