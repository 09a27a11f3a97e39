// Pure translators between the neutral messages and node-llama-cpp's chat history, function
// definitions and stop reasons. Only types come from node-llama-cpp, so this file loads without it.
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatModelResponse,
  GbnfJsonSchema,
  LlamaChatResponse,
} from "node-llama-cpp";
import { type AssistantMessage, assertNever, type Message, type StopReason } from "../../core/messages.ts";
import type { ModelRequest, ToolSpec } from "../../core/provider.ts";

/** Said in place of an image: these models read text only. */
const IMAGE_PLACEHOLDER = "[an image was attached here; this local model reads text only]";

/**
 * Why a request cannot go to a local model: its newest user message brings a picture, which it
 * cannot see (it reads text only). Images from earlier in the conversation (before a /model
 * switch, say) become IMAGE_PLACEHOLDER instead, so one picture does not block every later prompt.
 */
export function imageRefusal(request: ModelRequest, model: string): string | undefined {
  const newest = request.messages.filter((message) => message.role === "user").at(-1);
  if (!newest?.content.some((part) => part.type === "image")) return undefined;
  return `the local model ${basename(model)} has no vision: it reads text only and cannot see the attached image; send the prompt without it, or use a provider with a vision model`;
}

/**
 * The conversation as node-llama-cpp wants it. A tool call and its result travel together in
 * one `functionCall` item, and the model's reply after tool results continues the same model
 * item, as node-llama-cpp's own chat session builds it. The history always ends with a model
 * item (empty for a new turn), which is where generation continues.
 */
export function toChatHistory(request: ModelRequest): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  if (request.system) history.push({ type: "system", text: request.system });
  const results = new Map<string, Extract<Message, { role: "tool" }>>();
  for (const message of request.messages) if (message.role === "tool") results.set(message.toolCallId, message);

  let continuing: ChatModelResponse | undefined; // the model item a reply after tool results joins
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        continuing = undefined;
        history.push({
          type: "user",
          text: message.content.map((part) => (part.type === "text" ? part.text : IMAGE_PLACEHOLDER)).join("\n"),
        });
        break;
      case "assistant": {
        const item: ChatModelResponse = continuing ?? { type: "model", response: [] };
        if (!continuing) history.push(item);
        let startsNewChunk = true;
        for (const part of message.content) {
          switch (part.type) {
            case "text":
              if (part.text) item.response.push(part.text);
              break;
            case "thinking":
              if (part.text)
                item.response.push({ type: "segment", segmentType: "thought", text: part.text, ended: true });
              break;
            case "tool_call": {
              const result = results.get(part.id);
              const call: ChatModelFunctionCall = {
                type: "functionCall",
                name: part.name,
                params: parseArguments(part.arguments),
                result: result ? resultText(result) : "(no result)",
              };
              if (startsNewChunk) call.startsNewChunk = true;
              startsNewChunk = false;
              item.response.push(call);
              break;
            }
            default:
              assertNever(part);
          }
        }
        continuing = message.content.some((part) => part.type === "tool_call") ? item : undefined;
        break;
      }
      case "tool":
        break; // carried inside its call above
      default:
        assertNever(message);
    }
  }
  if (history.at(-1)?.type !== "model") history.push({ type: "model", response: [] });
  return history;
}

/** The tools as node-llama-cpp function definitions; their JSON Schema cut down to what its grammar knows. */
export function toFunctions(tools: ToolSpec[]): ChatModelFunctions | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((tool) => [tool.name, { description: tool.description, params: toGbnfSchema(tool.parameters) }]),
  );
}

const ANY_JSON: GbnfJsonSchema = { type: ["string", "number", "boolean", "null"] };
const SIMPLE_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);
const DATE_FORMATS = new Set(["date-time", "time", "date"]);

/**
 * Keeps the parts of a JSON Schema that node-llama-cpp turns into a grammar (types, properties,
 * items, enum, const, anyOf/oneOf, length limits) and drops the rest (`minimum`, `default`, ...),
 * which its grammar builder does not know. Its grammar makes every property required, so an
 * optional one becomes "this or null" and a null is dropped again (`dropOmitted`) before the
 * loop validates the arguments against the full schema.
 */
export function toGbnfSchema(schema: unknown): GbnfJsonSchema {
  if (typeof schema !== "object" || schema === null) return ANY_JSON;
  const s = schema as Record<string, unknown>;
  const description = typeof s.description === "string" ? { description: s.description } : {};
  if ("const" in s) return { const: s.const as string, ...description };
  if (Array.isArray(s.enum)) return { enum: s.enum as string[], ...description };
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants)) return { oneOf: variants.map(toGbnfSchema), ...description };
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string => typeof t === "string");
  if (types.length === 1 && types[0] === "object") {
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    const properties = Object.fromEntries(
      Object.entries((s.properties ?? {}) as Record<string, unknown>).map(([key, value]): [string, GbnfJsonSchema] => {
        const property = toGbnfSchema(value);
        return [
          key,
          required.includes(key)
            ? property
            : { oneOf: [property, { type: "null" }], description: "optional: null leaves it out" },
        ];
      }),
    );
    const additional = s.additionalProperties;
    return {
      type: "object",
      properties,
      required,
      ...(typeof additional === "object" && additional !== null
        ? { additionalProperties: toGbnfSchema(additional) }
        : additional === true
          ? { additionalProperties: true }
          : {}),
      ...description,
    };
  }
  if (types.length === 1 && types[0] === "array") {
    return {
      type: "array",
      ...(s.items ? { items: toGbnfSchema(s.items) } : {}),
      ...(typeof s.minItems === "number" ? { minItems: s.minItems } : {}),
      ...(typeof s.maxItems === "number" ? { maxItems: s.maxItems } : {}),
      ...description,
    };
  }
  if (types.length === 1 && types[0] === "string") {
    if (typeof s.format === "string" && DATE_FORMATS.has(s.format))
      return { type: "string", format: s.format as "date", ...description };
    return {
      type: "string",
      ...(typeof s.minLength === "number" ? { minLength: s.minLength } : {}),
      ...(typeof s.maxLength === "number" ? { maxLength: s.maxLength } : {}),
      ...description,
    };
  }
  const simple = types.filter((t) => SIMPLE_TYPES.has(t)) as Array<
    "string" | "number" | "integer" | "boolean" | "null"
  >;
  if (simple.length === 0) return ANY_JSON;
  return { type: simple.length === 1 ? simple[0] : simple, ...description };
}

/** node-llama-cpp's reason to stop, in neutral terms. */
export function toStopReason(reason: LlamaChatResponse["metadata"]["stopReason"]): StopReason {
  switch (reason) {
    case "eogToken":
    case "stopGenerationTrigger":
    case "customStopTrigger":
      return "stop";
    case "functionCalls":
      return "tool_use";
    case "maxTokens":
      return "length";
    case "abort":
      return "aborted";
    default:
      return assertNever(reason);
  }
}

/** The finished reply as one neutral assistant message; tool calls get fresh ids. */
export function toAssistantMessage(
  response: LlamaChatResponse<ChatModelFunctions>,
  model: string,
  tools: ToolSpec[],
): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  for (const part of response.fullResponse) {
    if (typeof part === "string") {
      if (part) content.push({ type: "text", text: part });
    } else if (part.segmentType === "thought" && part.text) {
      content.push({ type: "thinking", text: part.text });
    }
  }
  for (const call of response.functionCalls ?? []) {
    const schema = tools.find((tool) => tool.name === call.functionName)?.parameters;
    const params = dropOmitted(call.params ?? {}, schema);
    content.push({
      type: "tool_call",
      id: `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
      name: call.functionName,
      arguments: JSON.stringify(params),
    });
  }
  return { role: "assistant", content, stopReason: toStopReason(response.metadata.stopReason), api: "local", model };
}

/** Removes the nulls the grammar had the model write for optional top-level properties it left out. */
export function dropOmitted(params: unknown, schema: Record<string, unknown> | undefined): unknown {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return params;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(Object.entries(params).filter(([key, value]) => value !== null || required.includes(key)));
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // cut-off arguments were never run; show the model what it wrote
  }
}

function resultText(result: Extract<Message, { role: "tool" }>): string {
  const text = result.isError ? `Error: ${result.content}` : result.content;
  return result.images?.length ? `${text}\n[the image cannot be shown: this local model has no vision]` : text;
}
