// Local models sometimes write a tool call as text instead of using the tools API: inside
// `<tool_call>` tags (Qwen-style chat templates) or as a bare JSON object. We recognise both.
import type { AssistantMessage, ToolCallPart } from "../../core/messages.ts";

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;

/**
 * If a reply has no API tool calls but its text holds calls to known tools, returns the reply
 * with those calls as real tool calls and the call text removed. Otherwise returns it unchanged.
 */
export function recoverTextToolCalls(message: AssistantMessage, toolNames: string[]): AssistantMessage {
  if (toolNames.length === 0 || message.content.some((part) => part.type === "tool_call")) return message;
  const textIndex = message.content.findIndex((part) => part.type === "text");
  const textPart = message.content[textIndex];
  if (textPart?.type !== "text") return message;

  const found = findCalls(textPart.text, toolNames);
  if (!found) return message;
  const content = message.content.filter((_, index) => index !== textIndex);
  if (found.rest.trim()) content.splice(textIndex, 0, { type: "text", text: found.rest.trim() });
  return { ...message, content: [...content, ...found.calls], stopReason: "tool_use" };
}

function findCalls(text: string, toolNames: string[]): { calls: ToolCallPart[]; rest: string } | undefined {
  const calls: ToolCallPart[] = [];
  if (text.includes("<tool_call>")) {
    const rest = text.replace(TAGGED, (whole, body: string) => {
      const call = toCall(body, toolNames, calls.length);
      if (!call) return whole;
      calls.push(call);
      return "";
    });
    return calls.length > 0 ? { calls, rest } : undefined;
  }
  const bare = stripFence(text.trim());
  if (!bare.startsWith("{")) return undefined;
  const call = toCall(bare, toolNames, 0);
  return call ? { calls: [call], rest: "" } : undefined;
}

function toCall(body: string, toolNames: string[], position: number): ToolCallPart | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const record = parsed as Record<string, unknown>;
  const name = typeof record.name === "string" ? record.name : undefined;
  if (!name || !toolNames.includes(name)) return undefined;
  const args = record.arguments ?? record.parameters ?? {};
  const argumentsText = typeof args === "string" ? args : JSON.stringify(args);
  return { type: "tool_call", id: `text_call_${Date.now().toString(36)}_${position}`, name, arguments: argumentsText };
}

function stripFence(text: string): string {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  return fenced ? fenced[1] : text;
}
