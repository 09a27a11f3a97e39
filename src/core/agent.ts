import { countOf } from "../shared/helpers.ts";
import { wellFormedValue } from "../shared/well-formed.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./call-model.ts";
import { CompactionProgress, callModelWithinContext, type RunCompaction } from "./call-model-within-context.ts";
import { type CompactionHook, type CompactionResult, compactConversation } from "./compaction.ts";
import { factsOfCallWith } from "./compaction-contract.ts";
import type { ContextOptions } from "./context-budget.ts";
import { EVENT_SCHEMA_VERSION } from "./event-schema-version.ts";
import type { AgentEvent, RunResult } from "./events.ts";
import {
  addUsage,
  EMPTY_USAGE,
  type Message,
  textOf,
  toolCallsOf,
  type Usage,
  type UserContent,
  type UserMessage,
  userMessage,
  wellFormedReply,
} from "./messages.ts";
import { type Provider, ProviderError } from "./provider.ts";
import { answerReminder, endOfReply, type RunExit } from "./run-exit.ts";
import { type ApproveFn, runToolCalls, type ToolCallHooks, toolHooksOf } from "./run-tools.ts";
import { type RunEnding, type SessionToolContext, type Tool, type ToolContext, toToolSpec } from "./tool.ts";

/** Safety valve on model calls in one run (the contract's default for `--max-turns`). */
export const MAX_TURNS = 100;
/** Replies in a row whose tool-call JSON was broken before the run gives up. */
export const MAX_INVALID_JSON_TURNS = 3;

/** What a run needs. `messages` is the conversation so far; the run appends to it in place. */
export interface AgentOptions extends ToolCallHooks {
  provider: Provider;
  tools: Tool[];
  /** Waits (bounded) for called tools not yet in `tools` (an MCP server's still starting), which `tools` then gains. */
  lateTools?(names: string[]): Promise<void>;
  system: string;
  cwd: string;
  maxTurns?: number;
  maxTokens?: number;
  approve?: ApproveFn;
  retry?: RetryPolicy;
  sessionId?: string;
  /** What every tool call gets from the session (environment, sandbox, spill folder, secrets...), passed on whole. */
  toolContext?: SessionToolContext;
  /** Automatic compaction within this context window; absent = never compact on its own. */
  context?: ContextOptions;
  /** Asked before every compaction, automatic or /compact (the command hooks' PreCompact). */
  beforeCompaction?: CompactionHook;
  /**
   * Messages the user typed while the run worked (the chat's queue). Called after each batch of
   * tool results, before the next model call: the only point where a user message keeps every
   * tool call paired with its result.
   */
  takeQueuedMessages?: () => string[];
  /**
   * The tool whose accepted call is the run's answer (`--json-schema`: tools/final-answer.ts): the
   * run ends when a call of it ends the run with an answer (ToolOutput.endsRun). A reply in prose instead gets one reminder; a
   * second one, or a refusal, ends the run with an error, never with prose standing in for the answer.
   */
  answerTool?: string;
  /**
   * A model call failed in a way another model may get past (ProviderError.fallsBack), after its
   * own retries: the session moves to its next fallback model (as /model does) and returns its
   * provider, with which the run goes on; undefined when there is none left.
   */
  fallBack?(error: ProviderError): Promise<Provider | undefined>;
  /** Asked before each model call: a note that call carries and the conversation does not keep (core/call-reminder.ts). */
  reminder?: () => string | undefined;
}

export interface RunOptions extends AgentOptions {
  messages: Message[];
  /** A new user message to add before the first call (text, or parts with images); omit to continue the conversation as it is. */
  prompt?: string | UserContent;
  signal?: AbortSignal;
}

/** What the `done` event reports besides the exit: counted as the run goes. */
interface RunTally {
  turns: number;
  usage: Usage;
  /** The text of the last reply. */
  answer: string;
}

/**
 * The agent loop: call the model; if the reply asks for tools, run them, append the results
 * and call again; stop when a reply asks for none, at the turn limit, on abort or on error.
 * Yields every event as plain data and returns the final `done` event.
 */
export async function* runAgent(options: RunOptions): AsyncGenerator<AgentEvent, RunResult> {
  const tally: RunTally = { turns: 0, usage: EMPTY_USAGE, answer: "" };
  // The session id goes on the first and the last event, so `--output json` (the last alone) can be resumed.
  const session = options.sessionId ? { sessionId: options.sessionId } : {};
  yield {
    type: "start",
    schemaVersion: EVENT_SCHEMA_VERSION,
    provider: options.provider.name,
    model: options.provider.model,
    ...session,
  };
  if (options.prompt !== undefined) yield appendMessage(options.messages, userMessageOf(options.prompt));
  let exit: RunExit;
  try {
    exit = yield* runTurns(options, tally);
  } catch (error) {
    exit = { reason: "error", error: describeRunError(error) };
  }
  const result: RunResult = {
    type: "done",
    reason: exit.reason,
    answer: tally.answer,
    turns: tally.turns,
    usage: tally.usage,
    ...session,
    ...(exit.error ? { error: exit.error } : {}),
    ...(exit.stopReason ? { stopReason: exit.stopReason } : {}),
    ...(exit.outputTokens !== undefined ? { outputTokens: exit.outputTokens } : {}),
    ...(exit.answered ? { structured_output: exit.answered.value } : {}),
  };
  yield result;
  return result;
}

/** The turns of one run, each a model call and the tool calls its reply asks for, until one of the ways out. */
async function* runTurns(options: RunOptions, tally: RunTally): AsyncGenerator<AgentEvent, RunExit> {
  const { messages, tools } = options;
  let provider = options.provider;
  const signal = options.signal ?? new AbortController().signal;
  const maxTurns = options.maxTurns ?? MAX_TURNS;
  let specs = tools.map(toToolSpec);
  const context = toolContextFor(options, signal);
  const hooks = toolHooksOf(options);
  const compaction: RunCompaction | undefined = options.context && {
    context: options.context,
    beforeCompaction: options.beforeCompaction,
    factsOfCall: factsOfCallWith(tools, options.cwd),
    record: options.toolContext,
    progress: new CompactionProgress(),
  };
  let invalidJsonTurns = 0;
  let isReminded = false;
  while (true) {
    if (signal.aborted) return { reason: "aborted" };
    if (tally.turns >= maxTurns)
      return { reason: "max_turns", error: `stopped after ${countOf(maxTurns, "model call")} (--max-turns)` };
    tally.turns++;
    yield { type: "turn_start", turn: tally.turns };
    const { system, maxTokens } = options;
    if (specs.length !== tools.length) specs = tools.map(toToolSpec); // an MCP server came up (lateTools)
    const request = { system, messages, tools: specs, maxTokens, reminder: options.reminder?.() };
    const retry = options.retry ?? DEFAULT_RETRY;
    const call = yield* callModelWithinContext(provider, request, signal, retry, compaction, tally.usage);
    tally.usage = addUsage(tally.usage, call.compactionUsage);
    if (call.kind === "failed") {
      const next = call.error.fallsBack ? await options.fallBack?.(call.error) : undefined;
      if (!next) return { reason: "error", error: call.error.message };
      provider = next;
      continue;
    }
    // A lone surrogate in the reply (text, or an escape in a call's arguments) would be parsed into
    // the tool's input, stored, and sent back, where a strict server refuses it (shared/well-formed.ts).
    const reply = wellFormedReply(call.reply);
    if (reply.content.length > 0) yield appendMessage(messages, reply);
    if (reply.usage) {
      tally.usage = addUsage(tally.usage, reply.usage);
      yield { type: "usage", usage: reply.usage, total: tally.usage, model: provider.model };
    }
    tally.answer = textOf(reply);
    if (reply.stopReason === "aborted") return { reason: "aborted" };
    const calls = toolCallsOf(reply);
    if (calls.length === 0) {
      if (reply.stopReason === "pause") continue; // the server paused a long turn: let it go on
      if (!options.answerTool || reply.stopReason === "refusal") return endOfReply(reply, options);
      if (isReminded)
        return { reason: "error", error: `the model answered in prose again, not with ${options.answerTool}` };
      isReminded = true;
      yield appendMessage(messages, userMessage(answerReminder(options.answerTool)));
      continue;
    }
    const replyWasCut = reply.stopReason === "length";
    await options.lateTools?.(calls.map((call) => call.name).filter((name) => !tools.some((t) => t.name === name)));
    const batch = yield* runToolCalls(calls, { tools, context, approve: options.approve, replyWasCut, hooks });
    messages.push(...batch.results);
    for (const { model, usage } of batch.spent) {
      // Subagents' model calls are this run's cost too, priced at the model each ran on.
      tally.usage = addUsage(tally.usage, usage);
      yield { type: "usage", usage, total: tally.usage, model };
    }
    if (signal.aborted) return { reason: "aborted" };
    // After the results are in the conversation, so the session keeps every call paired with its result.
    if (batch.stop) return { reason: "error", error: batch.stop };
    if (batch.ends) return finishedBy(batch.ends, tally);
    for (const text of options.takeQueuedMessages?.() ?? []) yield appendMessage(messages, userMessage(text));
    invalidJsonTurns = batch.invalidJsonCount > 0 ? invalidJsonTurns + 1 : 0;
    if (invalidJsonTurns >= MAX_INVALID_JSON_TURNS) return { reason: "error", error: INVALID_JSON_ERROR };
  }
}

/** The exit of a run a tool call ended as finished (ToolOutput.endsRun); an answer becomes the run's answer text too. */
function finishedBy(ending: RunEnding, tally: RunTally): RunExit {
  switch (ending.kind) {
    case "turn":
      return { reason: "stop" };
    case "answer":
      tally.answer = JSON.stringify(ending.value);
      return { reason: "stop", answered: { value: ending.value } };
  }
}

const INVALID_JSON_ERROR = `the model sent invalid tool-call arguments ${MAX_INVALID_JSON_TURNS} times in a row; try a model with a larger output limit or a smaller task`;

/** What every tool call of one run shares: the session's part as given, the folder, the signal and the run's state. */
function toolContextFor(options: RunOptions, signal: AbortSignal): ToolContext {
  return { ...options.toolContext, cwd: options.cwd, signal, state: new Map<string, unknown>() };
}

function userMessageOf(prompt: string | UserContent): UserMessage {
  return typeof prompt === "string" ? userMessage(prompt) : { role: "user", content: prompt };
}

/** Adds a message to the conversation and returns its event; a prompt from outside (stream-json) is made well-formed. */
function appendMessage(messages: Message[], message: Message): AgentEvent {
  const kept = wellFormedValue(message);
  messages.push(kept);
  return { type: "message", message: kept };
}

/** A provider's error is already worded for the user; anything else is our bug, shown with its stack. */
function describeRunError(error: unknown): string {
  if (error instanceof ProviderError) return error.message;
  return `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/**
 * A conversation that lasts across prompts: holds the options and the messages, and runs
 * the loop for each new prompt. The CLI's chat is a client of this class.
 */
export class Agent {
  readonly messages: Message[];
  private settings: AgentOptions;

  constructor(options: AgentOptions & { messages?: Message[] }) {
    const { messages, ...rest } = options;
    this.settings = rest;
    this.messages = messages ?? [];
  }

  /** The options the next run uses; change them with `configure`. */
  get options(): Readonly<AgentOptions> {
    return this.settings;
  }

  /** Changes options for the runs that follow (another provider, another session's id and spill folder). */
  configure(changes: Partial<AgentOptions>): void {
    this.settings = { ...this.settings, ...changes };
  }

  /** Replaces the conversation (a new session, or a stored one resumed); never during a run. */
  replaceMessages(messages: readonly Message[]): void {
    this.messages.splice(0, this.messages.length, ...messages);
  }

  /** Sends a prompt and streams the run's events. */
  prompt(prompt: string | UserContent, signal?: AbortSignal): AsyncGenerator<AgentEvent, RunResult> {
    return runAgent({ ...this.options, messages: this.messages, prompt, signal });
  }

  /** Continues without a new user message (e.g. after a resumed, interrupted turn). */
  continue(signal?: AbortSignal): AsyncGenerator<AgentEvent, RunResult> {
    return runAgent({ ...this.options, messages: this.messages, signal });
  }

  /**
   * Summarises the older part of the conversation now (`/compact [focus]`), keeping the newest
   * turns verbatim. Yields the summary call's events and the `compaction` event; returns whether
   * it worked (a failure leaves the conversation as it was).
   */
  compact(focus?: string, signal?: AbortSignal): AsyncGenerator<AgentEvent, CompactionResult> {
    const { provider, system, tools, context, retry, maxTokens } = this.options;
    return compactConversation({
      provider,
      messages: this.messages,
      system,
      tools: tools.map(toToolSpec),
      context,
      reason: "manual",
      focus: focus?.trim() || undefined,
      maxTokens,
      signal: signal ?? new AbortController().signal,
      retry: retry ?? DEFAULT_RETRY,
      beforeCompaction: this.options.beforeCompaction,
      factsOfCall: factsOfCallWith(tools, this.options.cwd),
      record: this.options.toolContext,
    });
  }
}
