// Role-order bridges for servers that refuse a user message right after tool results (the model's
// catalogue entry says so: `rules.assistantAfterTools`, Mistral's models on any server). Pure: the
// conversation is the same, only the request's shape changes.
import type { AssistantMessage, ImagePart, Message, UserContent } from "../core/messages.ts";

/**
 * What the bridge says. Decision: a short line rather than empty text, which servers refuse ("an
 * assistant message must have content or tool calls") and Anthropic would drop; it reads as the
 * model having taken the results in, which is what happened.
 */
const BRIDGE_TEXT = "(tool results received)";

/**
 * The conversation with an assistant message between tool results and the user message after them.
 * A tool's images (which chat completions would send as a user message right after the tool
 * message) move into that user message, after the bridge, or into a user message of their own
 * when the tool results end the conversation.
 */
export function bridgeToolResults(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let images: UserContent = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role !== "tool") {
      out.push(message);
      continue;
    }
    const { images: own, ...result } = message;
    out.push(result);
    if (own?.length) images.push(imageNote(message.toolName, message.toolCallId, own), ...own);
    const next = messages[index + 1];
    if (next?.role === "tool") continue;
    const bridge: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: BRIDGE_TEXT }],
      stopReason: "stop",
    };
    if (next?.role === "user") {
      out.push(bridge, { ...next, content: [...images, ...next.content] });
      index++;
    } else if (images.length > 0) out.push(bridge, { role: "user", content: images });
    images = [];
  }
  return out;
}

/** The line before a tool's images, as chat completions' own user message of them says it. */
function imageNote(toolName: string, callId: string, images: readonly ImagePart[]): UserContent[number] {
  return { type: "text", text: `The image${images.length > 1 ? "s" : ""} from the ${toolName} call ${callId}:` };
}
