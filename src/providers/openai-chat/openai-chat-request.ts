// Neutral to wire for chat completions: pure functions, tested without a server.
import { type AssistantMessage, assertNever, type ImagePart, type Message } from "../../core/messages.ts";
import type { ModelRequest } from "../../core/provider.ts";
import type { OpenAICompat } from "../openai-compat.ts";
import { portableSchema } from "../portable-schema.ts";
import {
  isOpenAIModel,
  leftOut,
  openaiEffortPlan,
  type PlanTarget,
  type ThinkingLevel,
  type ThinkingPlan,
} from "../thinking-levels.ts";

/** The `api` our chat-completions replies carry (the name of OpenAI's first API); their wire fields go back only to their own source. */
export const CHAT_API = "openai";

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

/** The request body for `POST /chat/completions`, with the thinking fields (chatThinking). */
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
        if (message.api === CHAT_API && message.providerData) Object.assign(entry, message.providerData);
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

/**
 * Chat completions' thinking: OpenRouter (by name or URL) has its own `reasoning` object; OpenAI's
 * models (by name: a gpt-5 behind a proxy is still OpenAI's) take `reasoning_effort`; a Qwen3 on a
 * server of one's own (vLLM, llama.cpp, SGLang pass `chat_template_kwargs` to the chat
 * template) switches thinking on or off. Anything else is left out: servers differ too much.
 */
export function chatThinking(target: PlanTarget, level: ThinkingLevel): ThinkingPlan {
  if (target.name === "openrouter" || hostOf(target.baseUrl) === "openrouter.ai") {
    if (level === "off") return { fields: { reasoning: { enabled: false } } };
    return { fields: { reasoning: typeof level === "number" ? { max_tokens: level } : { effort: level } } };
  }
  if (isOpenAIModel(target.model)) return openaiEffortPlan(target, level, (effort) => ({ reasoning_effort: effort }));
  if (!isSelfHosted(target.baseUrl) || isOllama(target))
    return leftOut(target, level, "no thinking control is known for this server");
  if (/qwen3/i.test(target.model) && !/2507/.test(target.model)) {
    if (typeof level === "number")
      return leftOut(target, level, "Qwen3's template switches thinking on or off; it takes no budget");
    return { fields: { chat_template_kwargs: { enable_thinking: level !== "off" } } };
  }
  return leftOut(target, level, "no thinking control is known for this model on this server");
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return "";
  }
}

/** A server on this machine or a private network, where vLLM, llama.cpp and SGLang run. */
function isSelfHosted(baseUrl: string): boolean {
  const host = hostOf(baseUrl);
  return (
    /^(localhost|127\.|0\.0\.0\.0|\[::1\]|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(host) ||
    host.endsWith(".local") ||
    baseUrl.startsWith("http:")
  );
}

/** Ollama's OpenAI-compatible layer ignores the fields above. */
function isOllama(target: PlanTarget): boolean {
  return target.name === "ollama" || /:11434\b/.test(target.baseUrl);
}
