// One model call that stays within the context window, compacting the conversation when it
// must: the loop's only way to call the model. Kept apart from call-model.ts, which compaction
// itself uses for its summary call.
import { callModel, type RetryPolicy } from "./call-model.ts";
import {
  compactConversation,
  type CompactionHook,
  type CompactionReason,
  type CompactionResult,
} from "./compaction.ts";
import { compactionThreshold, conversationTokens, type ContextOptions } from "./context-budget.ts";
import type { AgentEvent } from "./events.ts";
import { addUsage, EMPTY_USAGE, type AssistantMessage, type Usage } from "./messages.ts";
import { ProviderError, type ModelRequest, type Provider } from "./provider.ts";

/**
 * The reply, or the provider error that ended the call, and either way the tokens the compactions
 * before it spent (zero when there were none), so the run counts them even when the call fails.
 */
export type ModelCallResult =
  | { kind: "reply"; reply: AssistantMessage; compactionUsage: Usage }
  | { kind: "failed"; error: ProviderError; compactionUsage: Usage };

/**
 * One model call within the context window. With `context` set: compacts first when the request
 * would pass the threshold; when the server still rejects it as too long, compacts and retries
 * once, then fails with an error that says what to do. Without `context`, a plain callModel.
 * `usageSoFar`: the run's tokens before this call, which a compaction's usage event totals on top of.
 */
export async function* callModelWithinContext(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal,
  retry: RetryPolicy,
  context: ContextOptions | undefined,
  usageSoFar: Usage = EMPTY_USAGE,
  beforeCompaction?: CompactionHook,
): AsyncGenerator<AgentEvent, ModelCallResult> {
  let compactionUsage = EMPTY_USAGE;
  const compact = async function* (reason: CompactionReason): AsyncGenerator<AgentEvent, CompactionResult> {
    const outcome = yield* compactConversation({
      provider,
      messages: request.messages,
      system: request.system,
      tools: request.tools,
      maxTokens: request.maxTokens,
      context,
      reason,
      signal,
      retry,
      usageSoFar: addUsage(usageSoFar, compactionUsage),
      beforeCompaction,
    });
    compactionUsage = addUsage(compactionUsage, outcome.usage);
    return outcome;
  };
  try {
    const call = () => callModel(provider, request, signal, retry);
    const reply = yield* context
      ? callCompactingAsNeeded({ call, compact, context, request, signal, model: provider.model })
      : call();
    return { kind: "reply", reply, compactionUsage };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { kind: "failed", error, compactionUsage };
  }
}

/** One model call and the compaction that may come before it, both bound to the run's settings. */
interface CompactingCall {
  call(): AsyncGenerator<AgentEvent, AssistantMessage>;
  compact(reason: CompactionReason): AsyncGenerator<AgentEvent, CompactionResult>;
  context: ContextOptions;
  request: ModelRequest;
  signal: AbortSignal;
  model: string;
}

/** The call, with a compaction before it past the threshold and one more try after an overflow. */
async function* callCompactingAsNeeded({
  call,
  compact,
  context,
  request,
  signal,
  model,
}: CompactingCall): AsyncGenerator<AgentEvent, AssistantMessage> {
  if (conversationTokens(request.messages, request.system, request.tools) >= compactionThreshold(context)) {
    // A failed threshold compaction is not fatal: the request may still fit (the threshold leaves room).
    yield* compact("threshold");
  }
  try {
    return yield* call();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== "context_overflow") throw error;
    const outcome = yield* compact("overflow");
    if (signal.aborted) return { role: "assistant", content: [], stopReason: "aborted", model };
    if (!outcome.ok)
      throw new ProviderError(
        "context_overflow",
        `${error.message} (compacting the conversation did not help: ${outcome.error})`,
        { status: error.status },
      );
  }
  try {
    return yield* call();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== "context_overflow") throw error;
    throw new ProviderError(
      "context_overflow",
      `the conversation is still too long after compaction; start a new session, or use a model with a larger context window (--context-window tells harness the real size). ${error.message}`,
      { status: error.status },
    );
  }
}
