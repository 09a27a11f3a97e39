// How a run ends: the exit the `done` event reports, and the ways out of a reply without tool calls.
import { countOf } from "../shared/helpers.ts";
import type { DoneReason } from "./events.ts";
import { type AssistantMessage, textOf } from "./messages.ts";

/** How a run ended, before the tallies are added: the `done` event's reason and error. */
export interface RunExit {
  reason: DoneReason;
  error?: string;
  /** The last reply was cut at the output limit or refused: said on `done`, with the tokens it spent. */
  stopReason?: "length" | "refusal";
  outputTokens?: number;
  /** The answer the answer tool accepted (AgentOptions.answerTool). */
  answered?: { value: unknown };
}

/**
 * How a run ends on a reply without tool calls. A reply cut at the output limit or refused says
 * so on `done`; one that left no text at all is an error, so it never ends silently with exit 0
 * (a reasoning model can spend the whole limit thinking).
 */
export function endOfReply(
  reply: AssistantMessage,
  { maxTokens, answerTool }: { maxTokens?: number; answerTool?: string },
): RunExit {
  if (reply.stopReason !== "length" && reply.stopReason !== "refusal") return { reason: "stop" };
  const said = { stopReason: reply.stopReason, ...(reply.usage ? { outputTokens: reply.usage.output } : {}) };
  if (textOf(reply).trim() !== "" && !answerTool) return { reason: "stop", ...said };
  if (reply.stopReason === "refusal") return { reason: "error", error: "the model declined to answer", ...said };
  const spent = reply.usage ? ` after ${countOf(reply.usage.output, "output token")}` : "";
  const limit = maxTokens ? ` (--max-tokens ${maxTokens})` : "";
  return {
    reason: "error",
    error: `the reply was cut off at the output limit${limit}${spent}, before any text (a reasoning model may spend it all thinking); try a larger --max-tokens`,
    ...said,
  };
}

/** The one reminder a reply in prose gets when the answer must come as a call of the answer tool. */
export function answerReminder(tool: string): string {
  return `Your answer must be given by calling the ${tool} tool, with input that matches its schema; prose is not read. Call ${tool} now.`;
}
