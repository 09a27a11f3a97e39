// How big the conversation is, in tokens, and when it is time to compact it. The size comes
// from what the server reported for the last reply (exact for everything up to that reply)
// plus an estimate of what was added since (tool results, a new prompt).
import type { Message } from "./messages.ts";
import type { ToolSpec } from "./provider.ts";

/** A rough, tokenizer-free estimate: about four characters per token for English and code. */
export const CHARS_PER_TOKEN = 4;
/** What one image costs, roughly (a ~1000x1000 picture on the main APIs). */
export const IMAGE_TOKENS = 1500;
/** Compact when the next request would pass this fraction of the window. */
export const DEFAULT_COMPACT_AT = 0.8;
/** Share of the window kept verbatim (the newest turns) when compacting. */
export const DEFAULT_KEEP_RECENT_FRACTION = 0.25;

/** Opting in to automatic compaction: the model's window and when to compact. */
export interface ContextOptions {
  /** The model's context window, in tokens. */
  window: number;
  /** Fraction of the window at which to compact (default 0.8). */
  compactAt?: number;
  /** Tokens of the newest turns kept verbatim (default a quarter of the window). */
  keepRecent?: number;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** A message's size in tokens, estimated from its characters (images at a flat rate). */
export function estimateMessageTokens(message: Message): number {
  if (message.role === "tool") return estimateTextTokens(message.content) + 4;
  let tokens = 4; // role and framing
  for (const part of message.content) {
    switch (part.type) {
      case "text":
      case "thinking":
        tokens += estimateTextTokens(part.text);
        break;
      case "image":
        tokens += IMAGE_TOKENS;
        break;
      case "tool_call":
        tokens += estimateTextTokens(part.name) + estimateTextTokens(part.arguments);
        break;
    }
  }
  return tokens;
}

/** The fixed part of every request: the system prompt and the tools' schemas. */
export function estimatePrefixTokens(system: string, tools: ToolSpec[]): number {
  return estimateTextTokens(system) + (tools.length > 0 ? estimateTextTokens(JSON.stringify(tools)) : 0);
}

/**
 * The size of a request carrying `messages`. The newest reply that reports usage covers the
 * whole request it answered plus its own output; only what came after it is estimated. Usage
 * on messages kept through a compaction is removed (see `compaction.ts`), so it never counts
 * a prefix that is gone.
 */
export function conversationTokens(messages: Message[], system: string, tools: ToolSpec[]): number {
  let estimated = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role === "assistant" && message.usage) {
      const { input, cacheRead, cacheWrite, output } = message.usage;
      const reported = input + cacheRead + cacheWrite + output;
      // Servers that report no input tokens (zeros) would make the window look empty: estimate instead.
      if (reported > output) return reported + estimated;
    }
    estimated += estimateMessageTokens(message);
  }
  return estimatePrefixTokens(system, tools) + estimated;
}

/** The token count past which the next request triggers a compaction. */
export function compactionThreshold(context: ContextOptions): number {
  return Math.floor(context.window * (context.compactAt ?? DEFAULT_COMPACT_AT));
}

/** Tokens of the newest turns to keep verbatim; without a window, a quarter of the current size. */
export function keepRecentTokens(context: ContextOptions | undefined, currentTokens: number): number {
  if (context?.keepRecent !== undefined) return context.keepRecent;
  return Math.floor((context?.window ?? currentTokens) * DEFAULT_KEEP_RECENT_FRACTION);
}
