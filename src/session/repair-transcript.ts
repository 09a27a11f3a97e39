import type { Message, ToolResultMessage } from "../core/messages.ts";
import { toolCallsOf } from "../core/messages.ts";
import { wellFormedValue } from "../shared/well-formed.ts";

/** What a call that never finished is told, so the conversation stays valid for every provider. */
export const UNFINISHED_TOOL_RESULT = "interrupted: the harness stopped before this call finished";

/**
 * Makes a transcript valid again after a crash: every tool call of an assistant message gets
 * exactly one result right after it. A call whose result never reached the disk (the harness
 * was killed while it ran) gets an error result saying so; a result with no call is dropped.
 * Text holding a lone surrogate (half an emoji, saved by an older version) gets U+FFFD in its
 * place, as a strict server refuses every request that carries one.
 * Pure: returns a new array and leaves the input alone.
 */
export function repairTranscript(messages: Message[]): Message[] {
  return pairToolResults(messages.map((message) => wellFormedValue(message)));
}

function pairToolResults(messages: Message[]): Message[] {
  const repaired: Message[] = [];
  let pending: Map<string, string> = new Map(); // call id -> tool name, waiting for a result
  const closePending = () => {
    for (const [toolCallId, toolName] of pending) {
      const result: ToolResultMessage = {
        role: "tool",
        toolCallId,
        toolName,
        content: UNFINISHED_TOOL_RESULT,
        isError: true,
      };
      repaired.push(result);
    }
    pending = new Map();
  };
  for (const message of messages) {
    if (message.role === "tool") {
      if (!pending.has(message.toolCallId)) continue;
      pending.delete(message.toolCallId);
      repaired.push(message);
      continue;
    }
    closePending();
    repaired.push(message);
    if (message.role === "assistant") for (const call of toolCallsOf(message)) pending.set(call.id, call.name);
  }
  closePending();
  return repaired;
}
