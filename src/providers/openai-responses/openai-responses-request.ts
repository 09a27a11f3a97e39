// Neutral to wire for the OpenAI Responses API: pure functions, tested without a server.
import {
  type AssistantMessage,
  assertNever,
  type ImagePart,
  type Message,
  type ToolResultMessage,
} from "../../core/messages.ts";
import type { ModelRequest } from "../../core/provider.ts";
import { portableSchema } from "../portable-schema.ts";
import { openaiEffortPlan, type PlanTarget, type ThinkingLevel, type ThinkingPlan } from "../thinking-levels.ts";

/** One input item as `POST /responses` takes it. */
type InputItem = Record<string, unknown>;

/** The `api` our Responses replies carry; their output items go back only to this API. */
export const RESPONSES_API = "responses";

/** OpenAI's effort, with a summary: it is what the Responses API shows of the reasoning; without it, thinking stays hidden. */
export function responsesThinking(target: PlanTarget, level: ThinkingLevel): ThinkingPlan {
  return openaiEffortPlan(target, level, (effort) => ({
    reasoning: effort === "none" ? { effort } : { effort, summary: "auto" },
  }));
}

/**
 * The request body for `POST /responses`, whole and stateless: `store: false`, so the server
 * keeps nothing (stored-responses.ts turns it into a stored or continuing one where that is on);
 * the reasoning comes back encrypted (`include`) and is sent again unchanged with the rest of
 * the conversation on every turn. The thinking
 * fields (responsesThinking) ask for an effort and a summary.
 */
export function toResponsesRequest(
  request: ModelRequest,
  model: string,
  thinkingFields: Record<string, unknown> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    input: toInputItems(request.messages),
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  if (request.system) body.instructions = request.system;
  if (request.tools.length > 0) {
    // `strict` defaults to true here, which wants every property required; our schemas are not
    // written for that, so it is off, as it is for chat completions.
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: portableSchema(tool.parameters),
      strict: false,
    }));
  }
  if (request.maxTokens) body.max_output_tokens = request.maxTokens;
  return { ...body, ...thinkingFields };
}

/** The conversation as input items: messages, function calls and their outputs, in order. */
export function toInputItems(messages: Message[]): InputItem[] {
  const items: InputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        items.push({
          role: "user",
          content: message.content.map((part) =>
            part.type === "text" ? { type: "input_text", text: part.text } : inputImage(part),
          ),
        });
        break;
      case "assistant":
        items.push(...toAssistantItems(message));
        break;
      case "tool":
        items.push(toFunctionCallOutput(message));
        break;
      default:
        assertNever(message);
    }
  }
  return items;
}

/** An image as the Responses API takes it, in a user message or a function call's output: a data URL. */
function inputImage(part: ImagePart): InputItem {
  return { type: "input_image", image_url: `data:${part.mediaType};base64,${part.data}` };
}

/**
 * A tool's result. Unlike chat completions, a function call's output may itself be a list of
 * content items, so a result's images go inside it (its text first, then the pictures), as they
 * do inside Anthropic's `tool_result`; a result without images stays a plain string.
 */
function toFunctionCallOutput(message: ToolResultMessage): InputItem {
  const output = message.images?.length
    ? [{ type: "input_text", text: message.content }, ...message.images.map(inputImage)]
    : message.content;
  return { type: "function_call_output", call_id: message.toolCallId, output };
}

/**
 * A reply of ours goes back as the output items it came as (providerData.output): reasoning
 * items with their encrypted content, unchanged, each before the item it led to, as the API
 * wants. A reasoning item without encrypted content (a server that sends none) is left out: it
 * could only be found in the server's store, which `store: false` never filled, and OpenAI
 * answers "Item ... not found" to it. A reply from another API is rebuilt from its parts; its
 * reasoning is dropped, as the server could not read it.
 */
function toAssistantItems(message: AssistantMessage): InputItem[] {
  const output = message.providerData?.output;
  if (message.api === RESPONSES_API && Array.isArray(output))
    return (structuredClone(output) as InputItem[]).filter(
      (item) => item.type !== "reasoning" || item.encrypted_content,
    );
  const items: InputItem[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case "thinking":
        break;
      case "text":
        if (part.text) items.push({ role: "assistant", content: part.text });
        break;
      case "tool_call":
        items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments });
        break;
      default:
        assertNever(part);
    }
  }
  return items;
}
