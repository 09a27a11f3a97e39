// Neutral to wire for Gemini's generateContent: pure functions, tested without a server.
// https://ai.google.dev/api/generate-content
import { type AssistantMessage, assertNever, type ImagePart, type Message } from "../../core/messages.ts";
import type { ModelRequest, ToolSpec } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { portableSchema } from "../portable-schema.ts";
import { jsonHeaders } from "../request-headers.ts";
import {
  effortFor,
  leftOut,
  type PlanTarget,
  type ThinkingLevel,
  type ThinkingPlan,
  thinkingSpec,
} from "../thinking-levels.ts";

/** One part of a Content (text, inlineData, functionCall, functionResponse), as the API takes it. */
export type WirePart = Record<string, unknown>;

export interface WireContent {
  role: "user" | "model";
  parts: WirePart[];
}

/** The `api` our Gemini replies carry; their wire parts go back only to their own source. */
export const GEMINI_API = "gemini";

/**
 * Gemini 3 refuses a function call of the current turn without a thought signature ("Function
 * call is missing a thought_signature in functionCall parts", anomalyco-style reports, e.g.
 * nanbingxyz/5ire#405). A call another model made has none; Google documents this value for
 * exactly that case (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs).
 */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

/**
 * The headers of a Gemini request: the key as `x-goog-api-key` (kept out of the URL, where logs
 * and errors would show it), and the settings' own headers, which win whatever their case.
 * https://ai.google.dev/gemini-api/docs/api-key
 */
export function geminiHeaders(settings: Pick<AdapterSettings, "apiKey" | "headers">): Record<string, string> {
  return jsonHeaders({ "x-goog-api-key": settings.apiKey || "no-key" }, settings.headers);
}

/** Gemini 2.5 budgets per level (https://ai.google.dev/gemini-api/docs/thinking#set-budget). */
const GEMINI_BUDGETS = { low: 1024, medium: 8192, high: 24_576 } as const;

/**
 * Gemini's `thinkingConfig` (generationConfig), with the thoughts' summaries asked for so they
 * can be shown. What each model takes is the catalogue's (catalogue/gemini-models.ts): Gemini 3 a
 * `thinkingLevel` of its own words, 2.5 a budget; `off` is the word or budget that stops it, or
 * left out where the model always thinks. A model the catalogue does not know takes a budget.
 * https://ai.google.dev/gemini-api/docs/thinking#thinking-levels
 */
export function geminiThinking(target: PlanTarget, level: ThinkingLevel): ThinkingPlan {
  const config = (fields: Record<string, unknown>) => ({
    fields: { thinkingConfig: { ...fields, includeThoughts: true } },
  });
  const spec = thinkingSpec(target);
  if (spec === false) return leftOut(target, level, `${target.model} does not think`);
  if (typeof level === "number") return config({ thinkingBudget: level });
  if (level === "off") {
    if (spec?.off === null || spec?.off === undefined) return leftOut(target, level, `${target.model} always thinks`);
    return typeof spec.off === "number"
      ? { fields: { thinkingConfig: { thinkingBudget: spec.off } } }
      : config({ thinkingLevel: spec.off });
  }
  if (!spec?.efforts) return config({ thinkingBudget: GEMINI_BUDGETS[level] });
  const { effort, notice } = effortFor(target, spec.efforts, level);
  return { ...config({ thinkingLevel: effort }), ...(notice ? { notice } : {}) };
}

/**
 * The body for `POST .../models/{model}:streamGenerateContent?alt=sse`. The thinking fields
 * (geminiThinking) are `thinkingConfig`, which belongs in `generationConfig`.
 */
export function toGeminiRequest(request: ModelRequest, thinkingFields: Record<string, unknown> = {}) {
  const body: Record<string, unknown> = { contents: toContents(request.messages) };
  if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools.length > 0) body.tools = [{ functionDeclarations: request.tools.map(toDeclaration) }];
  const generationConfig: Record<string, unknown> = { ...thinkingFields };
  if (request.maxTokens) generationConfig.maxOutputTokens = request.maxTokens;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

/**
 * A tool in Gemini's schema subset (portable-schema.ts). One with no arguments declares no
 * parameters: an OBJECT with no properties is refused ("parameters.properties: should be
 * non-empty for OBJECT type", https://ai.google.dev/api/caching#Schema).
 */
export function toDeclaration(tool: ToolSpec): WirePart {
  const parameters = portableSchema(tool.parameters);
  const properties = parameters.properties as Record<string, unknown> | undefined;
  const declaration: WirePart = { name: tool.name, description: tool.description };
  if (!properties || Object.keys(properties).length === 0) return declaration;
  // Gemini's Schema has no free-form object and no untyped array ("should be non-empty for OBJECT
  // type", "items: missing field"), which MCP servers' schemas often hold at some depth. Such a
  // tool's schema goes as `parametersJsonSchema`, the field that takes JSON Schema and is
  // "mutually exclusive with parameters" (https://ai.google.dev/api/caching#FunctionDeclaration):
  // the same schema, meaning what it says. Others keep `parameters`, as every Gemini server takes.
  if (hasOpenShape(parameters, true)) declaration.parametersJsonSchema = parameters;
  else declaration.parameters = parameters;
  return declaration;
}

/** Whether a schema holds, at any depth below the top, an object without properties or an array without items. */
function hasOpenShape(schema: unknown, isTop = false): boolean {
  if (!schema || typeof schema !== "object") return false;
  const node = schema as { type?: unknown; properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[] };
  if (!isTop && node.type === "object" && Object.keys(node.properties ?? {}).length === 0) return true;
  if (node.type === "array" && !node.items) return true;
  return (
    Object.values(node.properties ?? {}).some((child) => hasOpenShape(child)) ||
    hasOpenShape(node.items) ||
    (node.anyOf ?? []).some((branch) => hasOpenShape(branch))
  );
}

/**
 * The conversation as contents. Tool results are `functionResponse` parts of a user content, all
 * the results of one reply together (Gemini wants as many responses as the turn had calls), and
 * paired with their calls by order and name. Consecutive contents of one role are merged.
 */
export function toContents(messages: Message[]): WireContent[] {
  const contents: WireContent[] = [];
  // "If populated, the client [returns] the response with the matching id"
  // (https://ai.google.dev/api/caching#FunctionCall): the ids Gemini itself gave its calls.
  const geminiIds = new Set(
    messages.flatMap((message) =>
      message.role === "assistant" && message.api === GEMINI_API && Array.isArray(message.providerData?.parts)
        ? (message.providerData.parts as WirePart[]).flatMap((part) => {
            const id = (part.functionCall as { id?: unknown } | undefined)?.id;
            return typeof id === "string" && id ? [id] : [];
          })
        : [],
    ),
  );
  for (const message of messages) {
    switch (message.role) {
      case "user":
        append(
          contents,
          "user",
          message.content.map((part) => (part.type === "text" ? { text: part.text } : inlineData(part))),
        );
        break;
      case "assistant":
        append(contents, "model", toModelParts(message));
        break;
      case "tool": {
        const response = message.isError ? { error: message.content } : { result: message.content };
        const id = geminiIds.has(message.toolCallId) ? { id: message.toolCallId } : {};
        append(contents, "user", [
          { functionResponse: { ...id, name: message.toolName, response } },
          ...(message.images ?? []).map(inlineData),
        ]);
        break;
      }
      default:
        assertNever(message);
    }
  }
  return contents;
}

/**
 * A reply of ours goes back as the parts it came as (thought summaries, signatures on the parts
 * that carried them); replay.ts has already removed them from another source's reply, which is
 * rebuilt from its text and calls, the first call of each reply given the documented signature.
 */
function toModelParts(message: AssistantMessage): WirePart[] {
  const wire = message.providerData?.parts;
  if (message.api === GEMINI_API && Array.isArray(wire)) return structuredClone(wire) as WirePart[];
  const parts: WirePart[] = [];
  let isFirstCall = true;
  for (const part of message.content) {
    switch (part.type) {
      case "thinking":
        break;
      case "text":
        if (part.text) parts.push({ text: part.text });
        break;
      case "tool_call": {
        const call: WirePart = { functionCall: { name: part.name, args: parseArgs(part.arguments) } };
        const signature = part.providerData?.thoughtSignature;
        if (typeof signature === "string") call.thoughtSignature = signature;
        else if (isFirstCall) call.thoughtSignature = FOREIGN_CALL_SIGNATURE;
        isFirstCall = false;
        parts.push(call);
        break;
      }
      default:
        assertNever(part);
    }
  }
  return parts;
}

/** Arguments as an object: a call cut off mid-JSON, or not an object, goes back as what it was, in words. */
function parseArgs(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  return { arguments: text };
}

function inlineData(part: ImagePart): WirePart {
  return { inlineData: { mimeType: part.mediaType, data: part.data } };
}

function append(contents: WireContent[], role: WireContent["role"], parts: WirePart[]): void {
  if (parts.length === 0) return;
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}
