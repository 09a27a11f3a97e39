// One model call that stays within the context window, compacting the conversation when it
// must: the loop's only way to call the model. Kept apart from call-model.ts, which compaction
// itself uses for its summary call.
import { callModel, type RetryPolicy } from "./call-model.ts";
import { compactConversation, type CompactionReason } from "./compaction.ts";
import { compactionThreshold, conversationTokens, type ContextOptions } from "./context-budget.ts";
import type { AgentEvent } from "./events.ts";
import type { AssistantMessage, Usage } from "./messages.ts";
import { ProviderError, type ModelRequest, type Provider } from "./provider.ts";

/**
 * One model call within the context window. With `context` set: compacts first when the request
 * would pass the threshold; when the server still rejects it as too long, compacts and retries
 * once, then fails with an error that says what to do. Without `context`, a plain callModel.
 */
export async function* callModelWithinContext(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal,
  retry: RetryPolicy,
  context: ContextOptions | undefined,
  countUsage?: (usage: Usage) => Usage,
): AsyncGenerator<AgentEvent, AssistantMessage> {
  if (!context) return yield* callModel(provider, request, signal, retry);
  const compact = (reason: CompactionReason) =>
    compactConversation({
      provider,
      messages: request.messages,
      system: request.system,
      tools: request.tools,
      maxTokens: request.maxTokens,
      context,
      reason,
      signal,
      retry,
      countUsage,
    });

  if (conversationTokens(request.messages, request.system, request.tools) >= compactionThreshold(context)) {
    // A failed threshold compaction is not fatal: the request may still fit (the threshold leaves room).
    yield* compact("threshold");
  }
  try {
    return yield* callModel(provider, request, signal, retry);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== "context_overflow") throw error;
    const outcome = yield* compact("overflow");
    if (signal.aborted) return { role: "assistant", content: [], stopReason: "aborted", model: provider.model };
    if (!outcome.ok)
      throw new ProviderError(
        "context_overflow",
        `${error.message} (compacting the conversation did not help: ${outcome.error})`,
        { status: error.status },
      );
  }
  try {
    return yield* callModel(provider, request, signal, retry);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== "context_overflow") throw error;
    throw new ProviderError(
      "context_overflow",
      `the conversation is still too long after compaction; start a new session, or use a model with a larger context window (--context-window tells harness the real size). ${error.message}`,
      { status: error.status },
    );
  }
}
