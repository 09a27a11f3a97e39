// The one neutral message model. Providers convert to and from it at their edge only;
// everything else (loop, sessions, UI) speaks these types.
import { wellFormedJson, wellFormedValue } from "../shared/well-formed.ts";

/** Plain text written by the user or the model. */
export interface TextPart {
  type: "text";
  text: string;
}

/** An image: attached by the user, or returned by a tool (base64, as most APIs take it). */
export interface ImagePart {
  type: "image";
  mediaType: string;
  data: string;
  /** Where a session file keeps a large image instead of inline (beside the session file); set on reading one back. */
  file?: string;
}

/**
 * The model's reasoning. `signature` and `redacted` data are opaque provider tokens that
 * must go back unchanged (Anthropic extended thinking); `text` is what we show, dimmed.
 */
export interface ThinkingPart {
  type: "thinking";
  text: string;
  signature?: string;
  redactedData?: string;
}

/**
 * A tool call as the model wrote it. `arguments` is the raw JSON text exactly as received,
 * so it can be sent back verbatim and judged (valid or cut off) by the loop.
 */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  arguments: string;
  /**
   * Wire fields of this one call that its API wants back on it (Gemini's thought signature:
   * `extra_content` on chat completions, `thoughtSignature` natively). Sent back only to the
   * reply's own source (AssistantMessage `source`).
   */
  providerData?: Record<string, unknown>;
}

/** What the user said. */
export interface UserMessage {
  role: "user";
  content: UserContent;
}

/** A user message's parts: text, and images attached to it. */
export type UserContent = Array<TextPart | ImagePart>;

/** One complete reply of the model. */
export interface AssistantMessage {
  role: "assistant";
  content: Array<TextPart | ThinkingPart | ToolCallPart>;
  stopReason: StopReason;
  usage?: Usage;
  /** The API kind that produced it (`openai`, `anthropic`); opaque data below is only sent back to the same kind. */
  api?: string;
  model?: string;
  /** Wire fields a provider must see again on the next request (e.g. OpenRouter `reasoning_details`). */
  providerData?: Record<string, unknown>;
  /**
   * Who wrote the reply: opaque data (signatures, encrypted reasoning, provider fields) goes back
   * only to this same provider, model and wire API. Absent in sessions written before it existed;
   * those fall back to `api` alone.
   */
  source?: ReplySource;
  /** How the request that got this reply used server-side conversation state, when it did. */
  thread?: ThreadUse;
}

/**
 * A request that used the API's own copy of the conversation (Anthropic's message threads,
 * OpenAI's stored responses): whether it started one or continued one, and what it uploaded.
 * `refused` names why a continue was refused (`thread_not_found`, `previous_response_not_found`,
 * ...) before this request created a new one. `whole`: the server keeps nothing (it refused to
 * store), so the request carried everything and `refused` says why.
 */
export interface ThreadUse {
  mode: "create" | "continue" | "whole";
  /** The request body's size. */
  bytes: number;
  /** The conversation's messages the request carried (all of them for a create). */
  messages: number;
  refused?: string;
}

/** The provider, model and wire API a reply came from (providers/replay.ts compares them). */
export interface ReplySource {
  /** The wire API kind (`openai`, `responses`, `anthropic`, `gemini`). */
  api: string;
  /** The provider's name as the user chose it. */
  provider: string;
  /** The model as requested (the reply's own `model` may be a dated snapshot of it). */
  model: string;
  /** The endpoint's host (no path, no credentials): one name may point at different servers. */
  host: string;
}

/** The result of one tool call; every call gets exactly one. */
export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  /** Images the tool returned (read_file on a picture); `content` says what they are in words. */
  images?: ImagePart[];
}

/** Any message of the conversation. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * Why a reply ended. `length` = the output limit was hit; `refusal` covers content filters;
 * `pause` = the server paused a long turn (Anthropic `pause_turn`); `aborted` = the user interrupted.
 */
export type StopReason = "stop" | "tool_use" | "length" | "refusal" | "pause" | "aborted" | "error";

/** Token counts of one model call (input excludes cached tokens). */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const EMPTY_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/** Tokens spent on one model: a run's subagents may run on other models than its own, at other prices. */
export interface ModelUsage {
  model: string;
  usage: Usage;
}

/** `spent` with `usage` added to its model's tokens (models in the order they first spent). */
export function addSpent(spent: readonly ModelUsage[], model: string, usage: Usage): ModelUsage[] {
  if (!spent.some((entry) => entry.model === model)) return [...spent, { model, usage }];
  return spent.map((entry) => (entry.model === model ? { model, usage: addUsage(entry.usage, usage) } : entry));
}

export function userMessage(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

/** The text parts of a message joined, which is what a user reads as "the answer". */
export function textOf(message: Message): string {
  if (message.role === "tool") return message.content;
  let text = "";
  for (const part of message.content) if (part.type === "text") text += part.text;
  return text;
}

export function toolCallsOf(message: AssistantMessage): ToolCallPart[] {
  return message.content.filter((part): part is ToolCallPart => part.type === "tool_call");
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}

/** A model's reply made well-formed: its text and thinking, and its tool calls' arguments as JSON (wellFormedJson). */
export function wellFormedReply(reply: AssistantMessage): AssistantMessage {
  const fixed = wellFormedValue(reply);
  const isArgumentsBroken = (part: AssistantMessage["content"][number]) =>
    part.type === "tool_call" && wellFormedJson(part.arguments) !== part.arguments;
  if (!fixed.content.some(isArgumentsBroken)) return fixed;
  const content = fixed.content.map((part) =>
    part.type === "tool_call" ? { ...part, arguments: wellFormedJson(part.arguments) } : part,
  );
  return { ...fixed, content };
}
