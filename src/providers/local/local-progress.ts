// How far the in-process model has read the prompt. On a CPU a 2,000-token prompt takes tens of
// seconds before the first token (47 s for Qwen3 4B on 2 cores, issue 37); these events let the
// chat show `reading the prompt 512/2,140` instead of a bare clock.
import type { ChatHistoryItem, ChatModelFunctions, LlamaChat, Token } from "node-llama-cpp";
import type { ModelEvent } from "../../core/provider.ts";

/** A prompt shorter than this is read in a moment: no progress for it. */
const MIN_TOKENS_FOR_PROGRESS = 256;
/** How often progress is looked at; node-llama-cpp counts tokens once per batch (512 by default). */
const PROGRESS_POLL_MS = 250;

/**
 * The tokens this request will evaluate: its whole context as the chat wrapper renders it, less
 * the prefix the sequence already holds from the last request (node-llama-cpp reuses that much).
 */
export function tokensToRead(chat: LlamaChat, history: ChatHistoryItem[], functions?: ChatModelFunctions): number {
  const { contextText } = chat.chatWrapper.generateContextState({
    chatHistory: history,
    availableFunctions: functions,
  });
  const tokens = contextText.tokenize(chat.model.tokenizer);
  return tokens.length - sharedPrefix(tokens, chat.sequence.contextTokens);
}

function sharedPrefix(a: readonly Token[], b: readonly Token[]): number {
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return shared;
}

/**
 * Pushes `prompt_progress` events while the prompt is read, until `stop()` (the first output, or
 * the end). Nothing for a short prompt; each event only when the count moved.
 */
export function watchPromptReading(
  chat: LlamaChat,
  total: number,
  push: (event: ModelEvent) => void,
): { stop(): void } {
  if (total < MIN_TOKENS_FOR_PROGRESS) return { stop() {} };
  const startedAt = chat.sequence.tokenMeter.getState().usedInputTokens;
  let shown = -1;
  const look = () => {
    const done = Math.min(total, chat.sequence.tokenMeter.getState().usedInputTokens - startedAt);
    if (done === shown) return;
    shown = done;
    push({ type: "prompt_progress", done, total });
  };
  look();
  const timer = setInterval(look, PROGRESS_POLL_MS);
  return { stop: () => clearInterval(timer) };
}
