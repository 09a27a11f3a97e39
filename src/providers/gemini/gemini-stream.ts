// Wire to neutral for Gemini's generateContent: folds streamed responses into one assistant
// message. Pure (no I/O). https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
import { randomBytes } from "node:crypto";
import type { AssistantMessage, StopReason, Usage } from "../../core/messages.ts";
import type { ModelEvent } from "../../core/provider.ts";
import { GEMINI_API, type WirePart } from "./gemini-request.ts";

/** The parts of a streamed GenerateContentResponse we read. */
export interface GeminiChunk {
  candidates?: Array<{
    content?: { role?: string; parts?: WirePart[] } | null;
    finishReason?: string;
    index?: number;
  }>;
  promptFeedback?: { blockReason?: string } | null;
  usageMetadata?: GeminiUsage | null;
  modelVersion?: string;
  error?: unknown;
}

export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

/** Finishes that mean the content was withheld (https://ai.google.dev/api/generate-content#FinishReason). */
const WITHHELD = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE",
]);

/** Accumulates one streamed reply. Feed it chunks in order, then call `finish()`. */
export class GeminiStreamAccumulator {
  /** The reply's parts as they go back: text of one kind joined, calls and signatures as they came. */
  private parts: WirePart[] = [];
  private finishReason: string | undefined;
  private blockReason: string | undefined;
  private usage: GeminiUsage | undefined;
  private model: string | undefined;
  private callCount = 0;

  add(chunk: GeminiChunk): ModelEvent[] {
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.modelVersion) this.model = chunk.modelVersion;
    if (chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.find((c) => (c.index ?? 0) === 0);
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    const events: ModelEvent[] = [];
    for (const part of candidate?.content?.parts ?? []) events.push(...this.addPart(part));
    return events;
  }

  /** Complete once a finish reason came, or the prompt itself was blocked. */
  get isComplete(): boolean {
    return this.finishReason !== undefined || this.blockReason !== undefined;
  }

  finish(): AssistantMessage {
    const content: AssistantMessage["content"] = [];
    for (const part of this.parts) {
      if (typeof part.text === "string") {
        if (part.thought) content.push({ type: "thinking", text: part.text });
        else if (part.text) content.push({ type: "text", text: part.text });
      } else if (part.functionCall) {
        const call = part.functionCall as { name?: string; args?: unknown; id?: string };
        content.push({
          type: "tool_call",
          id: String(part.harnessId),
          name: call.name ?? "",
          arguments: JSON.stringify(call.args ?? {}),
        });
      }
    }
    const stopReason = this.stopReason(content.some((part) => part.type === "tool_call"));
    // A reply withheld or ended by the server says why, rather than ending in silence.
    if ((stopReason === "refusal" || stopReason === "error") && !content.some((part) => part.type === "text"))
      content.push({
        type: "text",
        text: this.blockReason
          ? `(Gemini blocked the prompt: ${this.blockReason})`
          : `(Gemini ended the reply: ${this.finishReason})`,
      });
    const parts = this.parts.map(({ harnessId: _id, ...part }) => part);
    const message: AssistantMessage = {
      role: "assistant",
      content,
      stopReason,
      api: GEMINI_API,
      providerData: { parts },
    };
    if (this.model) message.model = this.model;
    if (this.usage) message.usage = toUsage(this.usage);
    return message;
  }

  private addPart(part: WirePart): ModelEvent[] {
    if (part.functionCall) {
      const call = part.functionCall as { name?: string; id?: string };
      // Gemini names no id (or one only it reads); ours pairs the result in the neutral messages.
      const id = call.id || `call_${this.callCount}_${randomBytes(4).toString("hex")}`;
      this.parts.push({ ...structuredClone(part), harnessId: id });
      return [{ type: "tool_call_delta", index: this.callCount++, id, name: call.name ?? "" }];
    }
    if (typeof part.text !== "string") {
      this.parts.push(structuredClone(part)); // parts we do not know go back as they came
      return [];
    }
    const isThought = part.thought === true;
    const last = this.parts.at(-1);
    if (!part.text && !part.thoughtSignature) return []; // the closing empty part carries nothing
    // Streamed text arrives in many parts; one of a kind is kept, with any signature the pieces had.
    if (last && typeof last.text === "string" && (last.thought === true) === isThought && !last.thoughtSignature) {
      last.text += part.text;
      if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
    } else this.parts.push({ ...part });
    if (!part.text) return [];
    return [{ type: isThought ? "thinking_delta" : "text_delta", text: part.text }];
  }

  private stopReason(hasCalls: boolean): StopReason {
    if (this.blockReason) return "refusal";
    const reason = this.finishReason ?? "";
    if (reason === "MAX_TOKENS") return "length";
    if (WITHHELD.has(reason)) return "refusal";
    if (hasCalls) return "tool_use";
    return reason === "STOP" || reason === "" ? "stop" : "error"; // MALFORMED_FUNCTION_CALL, OTHER, ...
  }
}

/** Gemini usage to neutral: prompt tokens include the cached ones; thoughts are billed as output. */
export function toUsage(wire: GeminiUsage): Usage {
  const cacheRead = wire.cachedContentTokenCount ?? 0;
  const prompt = (wire.promptTokenCount ?? 0) + (wire.toolUsePromptTokenCount ?? 0);
  return {
    input: Math.max(0, prompt - cacheRead),
    output: (wire.candidatesTokenCount ?? 0) + (wire.thoughtsTokenCount ?? 0),
    cacheRead,
    cacheWrite: 0,
  };
}
