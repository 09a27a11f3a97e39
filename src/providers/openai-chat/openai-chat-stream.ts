// Wire to neutral for chat completions: folds streamed chunks into one assistant message.
// Pure (no I/O), so the recorded responses of many servers can be replayed through it in tests.
import type { AssistantMessage, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage } from "../../core/messages.ts";
import type { ModelEvent } from "../../core/provider.ts";
import { appendArguments } from "../../core/run-tools.ts";
import { CHAT_API } from "./openai-chat-request.ts";
import { type ContentPiece, ThinkTagSplitter } from "./think-tags.ts";

/** The parts of a chat-completions chunk we read; servers add and omit fields freely. */
export interface ChatChunk {
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: ChatDelta | null;
    message?: ChatDelta | null;
    finish_reason?: string | null;
  }>;
  usage?: WireUsage | null;
}

interface ChatDelta {
  content?:
    | string
    | null
    | Array<{ type: string; text?: string; thinking?: Array<{ type: string; text?: string }> | string }>;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_details?: Array<Record<string, unknown>> | null;
  refusal?: string | null;
  tool_calls?: Array<{
    index?: number;
    id?: string | null;
    function?: { name?: string | null; arguments?: string | null } | null;
    /** Gemini's compatibility layer: `{ google: { thought_signature } }`, which must come back on this call. */
    extra_content?: Record<string, unknown> | null;
  }> | null;
}

/** Chat-completions usage, with the detail fields servers disagree on. */
export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  prompt_cache_hit_tokens?: number;
}

interface PendingCall {
  index: number | undefined;
  id: string;
  name: string;
  arguments: string;
  extraContent?: Record<string, unknown>;
}

/** Accumulates one streamed reply. Feed it chunks in order, then call `finish()`. */
export class ChatStreamAccumulator {
  private text = "";
  private reasoning = "";
  private refusal = "";
  private calls: PendingCall[] = [];
  private reasoningDetails: Array<Record<string, unknown>> = [];
  private finishReason: string | null = null;
  private usage: WireUsage | null = null;
  private model: string | undefined;
  private readonly thinkTags = new ThinkTagSplitter();

  /** Folds one chunk in and returns the display events it carries. */
  add(chunk: ChatChunk): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    // Only the first choice counts (n > 1 replies interleave choices; we never ask for them).
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return events;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? choice.message;
    if (!delta) return events;
    // A whole (non-streamed) message lists complete calls, which may lack both index and id.
    const isWhole = !choice.delta;

    this.addContent(delta.content, events);
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    // Servers that send `reasoning_details` mostly send the same text as `reasoning` too; the
    // details' text and summaries are shown only when that plain field is absent.
    const shown = typeof reasoning === "string" && reasoning ? reasoning : readableDetails(delta.reasoning_details);
    if (shown) this.addThinking(shown, events);
    if (delta.reasoning_details) this.addReasoningDetails(delta.reasoning_details);
    if (typeof delta.refusal === "string" && delta.refusal) {
      this.refusal += delta.refusal;
      events.push({ type: "text_delta", text: delta.refusal });
    }
    for (const [position, call] of (delta.tool_calls ?? []).entries())
      this.addToolCall(isWhole ? { ...call, index: call.index ?? position } : call, events);
    return events;
  }

  /** Call once the stream has ended: the display events of text held back until then. */
  end(): ModelEvent[] {
    const events: ModelEvent[] = [];
    this.addPieces(this.thinkTags.flush(), events);
    return events;
  }

  /** True once the server said why the reply ended; a stream that stops before that was cut. */
  get isComplete(): boolean {
    return this.finishReason !== null;
  }

  finish(): AssistantMessage {
    const content: AssistantMessage["content"] = [];
    if (this.reasoning) content.push({ type: "thinking", text: this.reasoning } satisfies ThinkingPart);
    const text = this.text + this.refusal;
    if (text) content.push({ type: "text", text } satisfies TextPart);
    this.calls.forEach((call, position) => {
      // Some servers (Gemini's compatibility layer) send empty ids; the API needs one to pair the result.
      const id = call.id || `call_${position}_${Date.now().toString(36)}`;
      const part: ToolCallPart = { type: "tool_call", id, name: call.name, arguments: call.arguments };
      if (call.extraContent) part.providerData = { extra_content: call.extraContent };
      content.push(part);
    });
    const message: AssistantMessage = { role: "assistant", content, stopReason: this.stopReason(), api: CHAT_API };
    if (this.model) message.model = this.model;
    if (this.usage) message.usage = toUsage(this.usage);
    if (this.reasoningDetails.length > 0) message.providerData = { reasoning_details: this.reasoningDetails };
    return message;
  }

  private stopReason(): StopReason {
    if (this.refusal && !this.text) return "refusal";
    switch (this.finishReason) {
      case "tool_calls":
      case "function_call":
        return "tool_use";
      case "length":
        return "length";
      case "content_filter":
        return "refusal";
      default:
        // "stop", null, and server inventions ("eos", "end_turn"): a reply with calls still wants them run.
        return this.calls.length > 0 ? "tool_use" : "stop";
    }
  }

  private addContent(content: ChatDelta["content"], events: ModelEvent[]): void {
    if (typeof content === "string") {
      if (content) this.addPieces(this.thinkTags.push(content), events);
      return;
    }
    // Mistral's Magistral sends content as an array of typed parts.
    for (const part of content ?? []) {
      if (part.type === "text" && part.text) {
        this.text += part.text;
        events.push({ type: "text_delta", text: part.text });
      } else if (part.type === "thinking") {
        const thinking =
          typeof part.thinking === "string" ? part.thinking : (part.thinking ?? []).map((t) => t.text ?? "").join("");
        if (thinking) this.addThinking(thinking, events);
      }
    }
  }

  private addThinking(text: string, events: ModelEvent[]): void {
    this.reasoning += text;
    events.push({ type: "thinking_delta", text });
  }

  private addPieces(pieces: ContentPiece[], events: ModelEvent[]): void {
    for (const piece of pieces) {
      if (!piece.text) continue;
      if (piece.isThinking) this.addThinking(piece.text, events);
      else {
        this.text += piece.text;
        events.push({ type: "text_delta", text: piece.text });
      }
    }
  }

  /** Merged by `index` when present; else by id (a new id is a new call); else onto the last call. */
  private addToolCall(delta: NonNullable<ChatDelta["tool_calls"]>[number], events: ModelEvent[]): void {
    let call: PendingCall | undefined;
    if (delta.index !== undefined && delta.index !== null) call = this.calls.find((c) => c.index === delta.index);
    else if (delta.id) call = this.calls.find((c) => c.id === delta.id);
    else call = this.calls.at(-1);
    if (!call) {
      call = { index: delta.index ?? undefined, id: "", name: "", arguments: "" };
      this.calls.push(call);
    }
    // id and name: the first non-empty value wins (vLLM-style servers repeat `name: ""` later).
    if (!call.id && delta.id) call.id = delta.id;
    if (!call.name && delta.function?.name) {
      call.name = delta.function.name;
      events.push({ type: "tool_call_delta", index: this.calls.indexOf(call), id: call.id, name: call.name });
    }
    if (delta.function?.arguments) call.arguments = appendArguments(call.arguments, delta.function.arguments);
    if (delta.extra_content && typeof delta.extra_content === "object") call.extraContent = delta.extra_content;
  }

  /**
   * Entries are kept as they came, to go back unchanged (Gemini's thought signatures ride in
   * `reasoning.encrypted` entries). Only the streamed pieces of one entry are joined: a
   * `reasoning.text` or `reasoning.summary` delta continues the previous entry when that has the
   * same type and index. An encrypted entry sharing an index with text stays its own entry.
   */
  private addReasoningDetails(details: Array<Record<string, unknown>>): void {
    for (const detail of details) {
      const last = this.reasoningDetails.at(-1);
      const continues =
        last !== undefined && isStreamedText(detail) && last.type === detail.type && last.index === detail.index;
      if (!continues) {
        this.reasoningDetails.push({ ...detail });
        continue;
      }
      for (const [key, value] of Object.entries(detail)) {
        if (["text", "summary", "signature"].includes(key) && typeof value === "string")
          last[key] = String(last[key] ?? "") + value;
        else if (last[key] === undefined || last[key] === null) last[key] = value;
      }
    }
  }
}

function isStreamedText(detail: Record<string, unknown>): boolean {
  return detail.type === "reasoning.text" || detail.type === "reasoning.summary";
}

/** The readable part of `reasoning_details` entries: text and summaries (encrypted data is not shown). */
function readableDetails(details: ChatDelta["reasoning_details"]): string {
  let text = "";
  for (const detail of details ?? []) {
    if (detail.type === "reasoning.text" && typeof detail.text === "string") text += detail.text;
    else if (detail.type === "reasoning.summary" && typeof detail.summary === "string") text += detail.summary;
  }
  return text;
}

/**
 * Chat-completions usage to neutral usage: `input` excludes cached tokens. Servers disagree on
 * whether `completion_tokens` includes reasoning: OpenAI's does, xAI's and Gemini's (directly or
 * behind gateways) leave it out and report it beside it. `total_tokens` tells them apart: when it
 * exceeds prompt plus completion, the difference is output the completion count left out. Some
 * gateways leave it out of the total too (Vercel's for Gemini 3: completion 9, reasoning 84,
 * total = prompt + 9); reasoning larger than the completion count it would be part of gives that
 * away. Either way the reasoning is billed as output.
 */
export function toUsage(wire: WireUsage): Usage {
  const cacheRead = wire.prompt_tokens_details?.cached_tokens ?? wire.prompt_cache_hit_tokens ?? 0;
  const prompt = wire.prompt_tokens ?? 0;
  const completion = wire.completion_tokens ?? 0;
  const reasoning = wire.completion_tokens_details?.reasoning_tokens ?? 0;
  let output = completion;
  if (typeof wire.total_tokens === "number" && wire.total_tokens > prompt + completion)
    output = wire.total_tokens - prompt;
  else if (reasoning > completion) output = completion + reasoning;
  return { input: Math.max(0, prompt - cacheRead), output, cacheRead, cacheWrite: 0 };
}
