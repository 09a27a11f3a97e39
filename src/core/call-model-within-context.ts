// One model call that stays within the context window, compacting the conversation when it
// must: the loop's only way to call the model. Kept apart from call-model.ts, which compaction
// itself uses for its summary call.
import { callModel, type RetryPolicy } from "./call-model.ts";
import { type RemindedRequest, sentRequest } from "./call-reminder.ts";
import {
  type CompactionEvent,
  type CompactionHook,
  type CompactionReason,
  type CompactionRequest,
  type CompactionResult,
  compactConversation,
} from "./compaction.ts";
import type { FactsOfCall } from "./compaction-contract.ts";
import { type ContextOptions, compactionThreshold, conversationTokens, reportedInput } from "./context-budget.ts";
import type { AgentEvent } from "./events.ts";
import { type AssistantMessage, addUsage, EMPTY_USAGE, type Usage } from "./messages.ts";
import { type ModelRequest, type Provider, ProviderError } from "./provider.ts";

/**
 * The reply, or the provider error that ended the call, and either way the tokens the compactions
 * before it spent (zero when there were none), so the run counts them even when the call fails.
 */
export type ModelCallResult =
  | { kind: "reply"; reply: AssistantMessage; compactionUsage: Usage }
  | { kind: "failed"; error: ProviderError; compactionUsage: Usage };

/** What one run's compactions share: the window, the PreCompact hook, what they keep and record, their progress. */
export interface RunCompaction {
  context: ContextOptions;
  beforeCompaction?: CompactionHook;
  factsOfCall?: FactsOfCall;
  record?: CompactionRequest["record"];
  progress: CompactionProgress;
}

/** Compactions in a row whose next request was still at the threshold, after which a run compacts no more on its own. */
const MAX_FRUITLESS_COMPACTIONS = 3;
/** Most halvings of the part kept verbatim (a sixteenth of a quarter of the window: the newest turn, in practice). */
const MAX_HARDER = 4;

/**
 * What a run learns from its compactions, so that it never loops. After each, the next reply's
 * usage says how big the request really was: one still at the threshold makes the next compaction
 * keep half as much, and MAX_FRUITLESS_COMPACTIONS in a row (failed summaries count too) stop
 * automatic compaction for the run, which then says why (`compaction_stopped`). The server's
 * "too long" still gets one compaction and one retry per call until then, and an error after.
 */
export class CompactionProgress {
  /** Halvings of the kept part the next compaction makes. */
  harder = 0;
  /** Why the run no longer compacts on its own; undefined while it does. */
  stopped: string | undefined;
  private fruitless = 0;
  private awaiting: CompactionEvent | undefined;

  /** After each automatic compaction attempt: a failed one is fruitless; a done one waits for the next reply. */
  compacted(outcome: CompactionResult): void {
    if (outcome.ok) this.awaiting = outcome.event;
    else
      this.countFruitless(
        `the last ${MAX_FRUITLESS_COMPACTIONS} compactions failed or were not possible (${outcome.error})`,
      );
  }

  /** After each reply: the size the server reported for the request right after a compaction. */
  measured(reply: AssistantMessage, threshold: number): void {
    const event = this.awaiting;
    const reported = reportedInput(reply);
    if (!event || reported === 0) return; // no usage reported: nothing to learn from
    this.awaiting = undefined;
    if (reported < threshold) {
      this.fruitless = 0;
      return;
    }
    this.harder = Math.min(MAX_HARDER, this.harder + 1);
    this.countFruitless(
      `after ${MAX_FRUITLESS_COMPACTIONS} compactions in a row the next request was still ${reported} tokens, at or over the compaction threshold of ${threshold} (the last kept ${event.keptMessages} messages and its summary); the system prompt, tools and newest turn may fill the window, or the window is set too small (--context-window)`,
    );
  }

  private countFruitless(why: string): void {
    this.fruitless++;
    if (this.fruitless >= MAX_FRUITLESS_COMPACTIONS) this.stopped ??= why;
  }
}

/**
 * One model call within the context window. With `compaction` set: compacts first when the
 * request would pass the threshold (unless the run's compactions stopped making progress);
 * when the server still rejects it as too long, compacts and retries once, then fails with an
 * error that says what to do. Without it, a plain callModel. `usageSoFar`: the run's tokens
 * before this call, which a compaction's usage event totals on top of.
 */
export async function* callModelWithinContext(
  provider: Provider,
  request: RemindedRequest,
  signal: AbortSignal,
  retry: RetryPolicy,
  compaction: RunCompaction | undefined,
  usageSoFar: Usage = EMPTY_USAGE,
): AsyncGenerator<AgentEvent, ModelCallResult> {
  let compactionUsage = EMPTY_USAGE;
  const compact = async function* (
    run: RunCompaction,
    reason: CompactionReason,
  ): AsyncGenerator<AgentEvent, CompactionResult> {
    const wasStopped = run.progress.stopped;
    const outcome = yield* compactConversation({
      provider,
      messages: request.messages,
      system: request.system,
      tools: request.tools,
      maxTokens: request.maxTokens,
      context: run.context,
      reason,
      signal,
      retry,
      usageSoFar: addUsage(usageSoFar, compactionUsage),
      beforeCompaction: run.beforeCompaction,
      harder: run.progress.harder,
      factsOfCall: run.factsOfCall,
      record: run.record,
    });
    compactionUsage = addUsage(compactionUsage, outcome.usage);
    run.progress.compacted(outcome);
    if (!wasStopped && run.progress.stopped) yield { type: "compaction_stopped", reason: run.progress.stopped };
    return outcome;
  };
  try {
    const call = () => callModel(provider, sentRequest(request), signal, retry);
    const reply = yield* compaction
      ? callCompactingAsNeeded({
          call,
          compact: (reason) => compact(compaction, reason),
          compaction,
          request,
          signal,
          model: provider.model,
        })
      : call();
    if (compaction) {
      const wasStopped = compaction.progress.stopped;
      compaction.progress.measured(reply, compactionThreshold(compaction.context));
      if (!wasStopped && compaction.progress.stopped)
        yield { type: "compaction_stopped", reason: compaction.progress.stopped };
    }
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
  compaction: RunCompaction;
  request: ModelRequest;
  signal: AbortSignal;
  model: string;
}

/** The call, with a compaction before it past the threshold and one more try after an overflow. */
async function* callCompactingAsNeeded({
  call,
  compact,
  compaction,
  request,
  signal,
  model,
}: CompactingCall): AsyncGenerator<AgentEvent, AssistantMessage> {
  const { context, progress } = compaction;
  if (
    !progress.stopped &&
    conversationTokens(request.messages, request.system, request.tools) >= compactionThreshold(context)
  ) {
    // A failed threshold compaction is not fatal: the request may still fit (the threshold leaves room).
    yield* compact("threshold");
  }
  try {
    return yield* call();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== "context_overflow") throw error;
    if (progress.stopped)
      throw new ProviderError(
        "context_overflow",
        `${error.message} (compaction stopped earlier: ${progress.stopped})`,
        {
          status: error.status,
        },
      );
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
