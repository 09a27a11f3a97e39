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

/**
 * Estimates already made, per message: every step estimates the whole conversation again
 * (tokenRatio, conversationTokens), and messages are never changed once made (compaction and
 * the adapters make new ones), so each is counted once (issue 52: flat time per step).
 */
const estimates = new WeakMap<Message, number>();

/** A message's size in tokens, estimated from its characters (images at a flat rate). */
export function estimateMessageTokens(message: Message): number {
  let tokens = estimates.get(message);
  if (tokens === undefined) {
    tokens = estimateUncached(message);
    estimates.set(message, tokens);
  }
  return tokens;
}

function estimateUncached(message: Message): number {
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

/** Bounds on the calibration: a ratio outside them says more about a server's odd usage report than about its tokenizer. */
const MIN_TOKEN_RATIO = 0.5;
const MAX_TOKEN_RATIO = 10;

/**
 * How the server's token count of the messages compares with their estimate: the newest reply
 * that reports usage (input and cached tokens: the whole request it answered) less the estimate
 * of the system prompt and tools, over the estimate of the messages it answered. A tool step of
 * a few short fields counts about 18 tokens by characters and ~66 on a real tokenizer; CJK text
 * about a token per character against a quarter. The prefix is taken at its estimate: where it
 * is undercounted too, the ratio comes out higher and a compaction keeps less, never more.
 * Estimates of messages are multiplied by this. 1 when no reply reports usage.
 */
export function tokenRatio(messages: Message[], system: string, tools: ToolSpec[]): number {
  let at = messages.length - 1;
  while (at >= 0 && reportedInput(messages[at]) === 0) at--;
  if (at < 0) return 1;
  let estimated = 0;
  for (let index = 0; index < at; index++) estimated += estimateMessageTokens(messages[index]);
  const ratio = (reportedInput(messages[at]) - estimatePrefixTokens(system, tools)) / Math.max(1, estimated);
  return Math.min(MAX_TOKEN_RATIO, Math.max(MIN_TOKEN_RATIO, ratio));
}

/** The input tokens (cached ones included) the server reported for the request a reply answered; 0 when none. */
export function reportedInput(message: Message): number {
  if (message.role !== "assistant" || !message.usage) return 0;
  const { input, cacheRead, cacheWrite } = message.usage;
  return input + cacheRead + cacheWrite;
}

/**
 * The size of a request carrying `messages`. The newest reply that reports usage covers the
 * whole request it answered plus its own output; only what came after it is estimated, times
 * `ratio` (the calibration, see tokenRatio). Usage on messages kept through a compaction is
 * removed (see `compaction.ts`), so it never counts a prefix that is gone.
 */
export function conversationTokens(
  messages: Message[],
  system: string,
  tools: ToolSpec[],
  ratio = tokenRatio(messages, system, tools),
): number {
  let estimated = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    // Servers that report no input tokens (zeros) would make the window look empty: estimate instead.
    const input = reportedInput(message);
    if (input > 0)
      return input + (message.role === "assistant" ? (message.usage?.output ?? 0) : 0) + Math.ceil(estimated * ratio);
    estimated += estimateMessageTokens(message);
  }
  return estimatePrefixTokens(system, tools) + Math.ceil(estimated * ratio);
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
