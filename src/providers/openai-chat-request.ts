// Neutral to wire for chat completions: pure functions, tested without a server.
import { type AssistantMessage, assertNever, type ImagePart, type Message } from "../core/messages.ts";
import type { ModelRequest } from "../core/provider.ts";
import type { OpenAICompat } from "./openai-compat.ts";
import { portableSchema } from "./portable-schema.ts";

type WireMessage = Record<string, unknown>;
type WireContent = Record<string, unknown>;

/** A reply's reasoning as one text ("" when it has none). */
function thinkingOf(message: AssistantMessage): string {
  return message.content.map((part) => (part.type === "thinking" ? part.text : "")).join("");
}

/** An image as chat completions take it: a data URL. */
function imageUrl(part: ImagePart): WireContent {
  return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } };
}

/** The request body for `POST /chat/completions`, with the thinking fields (thinking.ts). */
export function toChatRequest(
  request: ModelRequest,
  model: string,
  compat: OpenAICompat,
  thinkingFields: Record<string, unknown> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: toWireMessages(request.system, request.messages, compat),
    stream: true,
  };
  if (compat.streamUsage) body.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    // Portable schemas: the same request works when the server behind the URL is Gemini's
    // compatibility layer or a router. Strict mode is not used, so it needs nothing more here.
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: portableSchema(tool.parameters) },
    }));
  }
  if (request.maxTokens) body[compat.maxTokensField] = request.maxTokens;
  return { ...body, ...thinkingFields };
}

/**
 * The conversation in chat-completions form. An assistant message with tool calls goes back
 * as received: same ids, names and raw argument text, plus any provider data it came with.
 */
export function toWireMessages(
  system: string,
  messages: Message[],
  compat: Pick<OpenAICompat, "echoReasoningContent"> = { echoReasoningContent: false },
): WireMessage[] {
  const wire: WireMessage[] = [];
  if (system) wire.push({ role: "system", content: system });
  // Tool messages carry text only: a result's images follow in one user message after the run
  // of tool messages (which must stay together, right after the calls), each named by its call.
  let toolImages: WireContent[] = [];
  for (const [index, message] of messages.entries()) {
    switch (message.role) {
      case "user": {
        const hasImages = message.content.some((part) => part.type === "image");
        const content = hasImages
          ? message.content.map((part) => (part.type === "text" ? { type: "text", text: part.text } : imageUrl(part)))
          : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
        wire.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
        const toolCalls = message.content.flatMap((part) =>
          part.type === "tool_call"
            ? [
                {
                  id: part.id,
                  type: "function",
                  function: { name: part.name, arguments: part.arguments },
                  ...part.providerData, // Gemini's `extra_content` with the call's thought signature
                },
              ]
            : [],
        );
        const entry: WireMessage = { role: "assistant", content: text || null };
        if (toolCalls.length > 0) entry.tool_calls = toolCalls;
        if (toolCalls.length > 0 && compat.echoReasoningContent) entry.reasoning_content = thinkingOf(message);
        // replay.ts has already left out the provider data of replies from another source.
        if (message.api === "openai" && message.providerData) Object.assign(entry, message.providerData);
        wire.push(entry);
        break;
      }
      case "tool":
        wire.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
        if (message.images?.length) {
          toolImages.push(
            {
              type: "text",
              text: `The image${message.images.length > 1 ? "s" : ""} from the ${message.toolName} call ${message.toolCallId}:`,
            },
            ...message.images.map(imageUrl),
          );
        }
        if (toolImages.length > 0 && messages[index + 1]?.role !== "tool") {
          wire.push({ role: "user", content: toolImages });
          toolImages = [];
        }
        break;
      default:
        assertNever(message);
    }
  }
  return wire;
}
