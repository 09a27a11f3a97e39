// Compaction: the older part of the conversation is summarised by the model itself and replaced
// by that summary; the newest turns stay verbatim. The loop compacts before a request that would
// pass the threshold, and once more (then gives up) when the server rejects a request as too long.
import { closeSync, writeFileSync } from "node:fs";
import { countOf } from "../shared/helpers.ts";
import { redactText } from "../shared/redact.ts";
import { callModel, type RetryPolicy } from "./call-model.ts";
import { collectFacts, type FactsOfCall, renderFacts, SUMMARY_HEADING } from "./compaction-contract.ts";
import {
  CHARS_PER_TOKEN,
  type ContextOptions,
  conversationTokens,
  estimateMessageTokens,
  keepRecentTokens,
  tokenRatio,
} from "./context-budget.ts";
import type { AgentEvent } from "./events.ts";
import {
  type AssistantMessage,
  addUsage,
  EMPTY_USAGE,
  type Message,
  textOf,
  type Usage,
  type UserMessage,
} from "./messages.ts";
import { openSpillFile, spillDirOf } from "./output-spill.ts";
import { type ModelRequest, type Provider, ProviderError, type ToolSpec } from "./provider.ts";
import type { SessionToolContext } from "./tool.ts";

/** The summariser's instructions; tests recognise a summary request by it (and by its lack of tools). */
export const SUMMARY_SYSTEM_PROMPT = `You compact the history of a coding agent's session. The agent will continue the work with your summary in place of the history, so keep everything needed to carry on and nothing else. Write plain Markdown with these sections:
## Goal
## User instructions (constraints and preferences; quote exact wording where it matters)
## Decisions (what was decided and why)
## Open decisions (questions put to the user and choices not yet made; carry forward those of an earlier summary until settled)
## Files (each path touched: created, edited or read, and its current state)
## Commands and results (only those whose results still matter: test runs, errors, versions)
## Open problems
## Next steps
Be specific: names, paths, line numbers, values, error messages. If the history starts with an earlier summary, fold it in. Do not call tools; do not address the user.`;

/** How the summary is shown to the model, so it knows what it is reading. */
const SUMMARY_LABEL =
  "[Summary of the earlier part of this conversation, written when it was compacted to fit the context window. Continue the work from here.]";
/** The transcript sent for summarising is cut to this share of the window (middle out). */
const TRANSCRIPT_MAX_SHARE = 0.5;
/** Per-item caps in that transcript: old tool output and big arguments matter only in outline. */
const TRANSCRIPT_TOOL_RESULT_CHARS = 2000;
const TRANSCRIPT_ARGUMENT_CHARS = 1000;
/** Summary calls when the transcript itself is too long: each retry halves it. */
const SUMMARY_ATTEMPTS = 2;
/**
 * At most this share of the conversation (in calibrated tokens) is kept verbatim, whatever the
 * window: a compaction removes at least the other half, so a long run of small tool steps is
 * summarised in bulk rather than a few messages at a time.
 */
const MAX_KEPT_SHARE = 0.5;

/** Why a compaction happened. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** What a compaction did (the same fields as its event). */
export type CompactionEvent = Extract<AgentEvent, { type: "compaction" }>;

/**
 * The outcome of one compaction attempt, with the summary call's tokens (`usage`: zero when no
 * call was made), which the caller adds to its run's total.
 */
export type CompactionResult = ({ ok: true; event: CompactionEvent } | { ok: false; error: string }) & {
  usage: Usage;
};

/**
 * Told before each compaction (Claude Code's PreCompact hooks): `block` cancels it, which a
 * manual one reports and an automatic one survives by going on uncompacted; `instructions` are
 * added to what the summary should keep. `trigger` is Claude's word: `manual` for /compact,
 * `auto` for the threshold and after an overflow.
 */
export type CompactionHook = (
  trigger: "manual" | "auto",
  focus: string | undefined,
  signal: AbortSignal,
) => Promise<{ block: string } | { instructions?: string }>;

/** What a compaction needs besides the messages it rewrites in place. */
export interface CompactionRequest {
  provider: Provider;
  messages: Message[];
  system: string;
  tools: ToolSpec[];
  context?: ContextOptions;
  reason: CompactionReason;
  /** What the summary should keep in particular (`/compact <focus>`). */
  focus?: string;
  /**
   * The summary's output cap: the run's own (absent = the provider's default), since a provider
   * may require it above a thinking budget it adds to every request.
   */
  maxTokens?: number;
  signal: AbortSignal;
  retry: RetryPolicy;
  /** The run's tokens before this compaction: the summary call's usage event totals on top of them. */
  usageSoFar?: Usage;
  beforeCompaction?: CompactionHook;
  /**
   * How many times to halve the part kept verbatim: raised by the loop when the request after
   * an earlier compaction did not shrink enough (call-model-within-context.ts).
   */
  harder?: number;
  /** What each tool call touched and set, for the ledger and the plan that always survive. */
  factsOfCall?: FactsOfCall;
  /** Where the removed part is written in full (the spill folder), with what to redact, and the session's file. */
  record?: Pick<SessionToolContext, "spillDir" | "secrets" | "sessionFile">;
}

/** The message that stands in for the summarised part. */
export function summaryMessage(summary: string): UserMessage {
  return { role: "user", content: [{ type: "text", text: `${SUMMARY_LABEL}\n\n${summary}` }] };
}

function isSummaryMessage(message: Message | undefined): boolean {
  return message?.role === "user" && textOf(message).startsWith(SUMMARY_LABEL);
}

/**
 * The conversation after a compaction: the summary, then the kept messages. Kept replies lose
 * their `usage`, which measured a prefix that is gone (see conversationTokens). The session
 * reader rebuilds a resumed conversation with this same function.
 */
export function compactedMessages(summary: string, kept: Message[]): Message[] {
  return [summaryMessage(summary), ...kept.map(withoutUsage)];
}

function withoutUsage(message: Message): Message {
  if (message.role !== "assistant" || !message.usage) return message;
  const { usage: _stale, ...rest } = message;
  return rest;
}

/**
 * Where the kept part starts: the newest turn always, and older ones while the kept part stays
 * within `keepTokens`. It begins at a user or an assistant message, never at a tool result, so
 * a call and its result stay on the same side. Returns 0 when there is nothing older to summarise.
 */
export function findCut(messages: Message[], keepTokens: number): number {
  let kept = 0;
  let cut = 0;
  for (let index = messages.length - 1; index > 0; index--) {
    kept += estimateMessageTokens(messages[index]);
    if (messages[index].role === "tool") continue;
    if (cut !== 0 && kept > keepTokens) break;
    cut = index;
  }
  return cut;
}

/** The old part as plain text, so the summary request has no tool calls to pair up. */
export function serialiseTranscript(messages: Message[], maxChars: number): string {
  // Keep the start (the goal, an earlier summary) and the end (the latest state).
  return clip(messages.map((message) => serialiseMessage(message)).join("\n\n"), maxChars, "\n\n");
}

/** One message as text; `isOutline` cuts big arguments and tool output (the summary's transcript). */
function serialiseMessage(message: Message, isOutline = true): string {
  const cut = (text: string, max: number) => (isOutline ? clip(text, max) : text);
  switch (message.role) {
    case "user":
      return `[user]\n${message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n")}`;
    case "assistant": {
      const lines = ["[assistant]"];
      for (const part of message.content) {
        if (part.type === "text" && part.text) lines.push(part.text);
        if (part.type === "tool_call")
          lines.push(`[tool call ${part.name}] ${cut(part.arguments, TRANSCRIPT_ARGUMENT_CHARS)}`);
        // Reasoning is left out: the decisions it led to are in the text and the calls.
      }
      return lines.join("\n");
    }
    case "tool":
      return `[${message.toolName} result${message.isError ? ", error" : ""}]\n${cut(message.content, TRANSCRIPT_TOOL_RESULT_CHARS)}`;
  }
}

/**
 * The start and end of a text within `max` characters, with the size of the cut between them.
 * Characters, not bytes (as tool output is cut): this text is measured against the window.
 */
function clip(text: string, max: number, gap = " "): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}${gap}[... ${text.length - 2 * half} characters cut ...]${gap}${text.slice(-half)}`;
}

/**
 * Summarises the older part of `request.messages` and replaces it in place by the summary.
 * Yields the summary call's retry and usage events, then the `compaction` event. Never throws
 * for a failed summary call: the caller decides whether to go on uncompacted.
 */
export async function* compactConversation(request: CompactionRequest): AsyncGenerator<AgentEvent, CompactionResult> {
  const { provider, messages, system, tools, context, signal } = request;
  // Estimates are calibrated on what the server counted (see tokenRatio): what is kept is
  // measured in the server's tokens, not in characters / 4.
  const ratio = tokenRatio(messages, system, tools);
  const tokensBefore = conversationTokens(messages, system, tools, ratio);
  const cut = findCut(messages, keptTokens(request, tokensBefore) / ratio);
  if (cut < 1 || (cut === 1 && isSummaryMessage(messages[0]))) {
    return {
      ok: false,
      error: "there is nothing old enough to summarise (the newest turn alone fills the space kept verbatim)",
      usage: EMPTY_USAGE,
    };
  }
  const focus = await focusAfterHook(request);
  if (typeof focus === "object") return { ok: false, error: focus.blocked, usage: EMPTY_USAGE };
  const old = messages.slice(0, cut);
  const window = context?.window;
  let transcriptChars = window ? Math.floor(window * TRANSCRIPT_MAX_SHARE * CHARS_PER_TOKEN) : Number.POSITIVE_INFINITY;

  let summary = "";
  let spent = EMPTY_USAGE;
  for (let attempt = 1; attempt <= SUMMARY_ATTEMPTS && !summary; attempt++) {
    const transcript = serialiseTranscript(old, transcriptChars);
    const ask = `Here is the history to summarise:\n\n<history>\n${transcript}\n</history>\n\nWrite the summary now.${focus ? ` Pay particular attention to: ${focus}` : ""}`;
    const summaryRequest: ModelRequest = {
      system: SUMMARY_SYSTEM_PROMPT,
      messages: [{ role: "user", content: [{ type: "text", text: ask }] }],
      tools: [],
      maxTokens: request.maxTokens,
    };
    let reply: AssistantMessage;
    try {
      reply = yield* retriesOnly(callModel(provider, summaryRequest, signal, request.retry));
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.kind === "context_overflow" && attempt < SUMMARY_ATTEMPTS) {
        transcriptChars = Math.floor(Math.min(transcriptChars, transcript.length) / 2);
        continue;
      }
      return { ok: false, error: `the summary request failed: ${error.message}`, usage: spent };
    }
    if (reply.usage) {
      spent = addUsage(spent, reply.usage);
      yield {
        type: "usage",
        usage: reply.usage,
        total: addUsage(request.usageSoFar ?? EMPTY_USAGE, spent),
        model: provider.model,
      };
    }
    if (reply.stopReason === "aborted") return { ok: false, error: "interrupted", usage: spent };
    summary = textOf(reply).trim();
    if (!summary) return { ok: false, error: "the model returned an empty summary", usage: spent };
  }
  if (!summary) return { ok: false, error: "the history is too long to summarise even when cut", usage: spent };

  const kept = messages.slice(cut);
  const note = noteAfterCompaction(old, summary, request);
  messages.splice(0, messages.length, ...compactedMessages(note, kept));
  const event: CompactionEvent = {
    type: "compaction",
    summary: note,
    removedMessages: cut,
    keptMessages: kept.length,
    tokensBefore,
    tokensAfter: conversationTokens(messages, system, tools, ratio),
    reason: request.reason,
  };
  yield event;
  return { ok: true, event, usage: spent };
}

/**
 * Tokens of the newest turns to keep verbatim: the run's setting (a quarter of the window),
 * a quarter of what was sent after an overflow (the window is evidently smaller than we
 * thought), never more than MAX_KEPT_SHARE of the conversation, halved `harder` times.
 */
function keptTokens(request: CompactionRequest, tokensBefore: number): number {
  const keep = keepRecentTokens(request.context, tokensBefore);
  const afterOverflow =
    request.reason === "overflow" ? Math.min(keep, keepRecentTokens(undefined, tokensBefore)) : keep;
  return Math.min(afterOverflow, tokensBefore * MAX_KEPT_SHARE) / 2 ** (request.harder ?? 0);
}

/**
 * What stands in for the removed part (after the summary label): where the full record is, the
 * facts that always survive (compaction-contract.ts), then the model's summary.
 */
function noteAfterCompaction(removed: Message[], summary: string, request: CompactionRequest): string {
  const earlier = isSummaryMessage(removed[0]) ? textOf(removed[0]).slice(SUMMARY_LABEL.length).trim() : undefined;
  const facts = collectFacts(earlier === undefined ? removed : removed.slice(1), request.factsOfCall, earlier);
  const where = [
    request.record?.sessionFile ? `the session file ${request.record.sessionFile} holds every message` : "",
    recordRemoved(removed, request.record),
  ].filter(Boolean);
  return [
    `The conversation was compacted: ${countOf(removed.length, "older message")} were replaced by this note.${where.length ? ` The full record: ${where.join("; ")}.` : ""}`,
    renderFacts(facts),
    SUMMARY_HEADING,
    summary,
  ].join("\n\n");
}

/**
 * Writes the removed part as plain text to the spill folder, where read_file may read it, and
 * says where; keys are redacted on the way to the disk. Empty when it could not be written.
 */
function recordRemoved(removed: Message[], record: CompactionRequest["record"]): string {
  try {
    const { fd, path } = openSpillFile(spillDirOf(record ?? {}), "compacted");
    try {
      writeFileSync(
        fd,
        redactText(removed.map((message) => serialiseMessage(message, false)).join("\n\n"), record?.secrets),
      );
    } finally {
      closeSync(fd);
    }
    return `what this note replaced is in ${path} (read it with read_file when a detail is missing)`;
  } catch {
    return "";
  }
}

/** The summary's focus with what the hook added, or why the hook blocked the compaction. */
async function focusAfterHook(request: CompactionRequest): Promise<string | undefined | { blocked: string }> {
  if (!request.beforeCompaction) return request.focus;
  const trigger = request.reason === "manual" ? "manual" : "auto";
  const said = await request.beforeCompaction(trigger, request.focus, request.signal);
  if ("block" in said) return { blocked: `a PreCompact hook blocked it: ${said.block}` };
  return [request.focus, said.instructions].filter(Boolean).join("\n") || undefined;
}

/** Passes on a summary call's retries; its streamed text is not the agent's reply and must not be shown as one. */
async function* retriesOnly(
  call: AsyncGenerator<AgentEvent, AssistantMessage>,
): AsyncGenerator<AgentEvent, AssistantMessage> {
  for (let step = await call.next(); ; step = await call.next()) {
    if (step.done) return step.value;
    if (step.value.type === "retry") yield step.value;
  }
}
