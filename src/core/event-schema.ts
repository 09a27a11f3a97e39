// The event stream's schema, declared once: `AgentEvent` is inferred from it, the JSON Schema
// in docs/events.schema.json is generated from it, and tests validate `--output stream-json`
// against it. Changing an event here is changing the public stream: bump EVENT_SCHEMA_VERSION
// when a field is removed or changes meaning (adding an optional field or a new event type is
// backward compatible and keeps the version).
import { z } from "zod";
import { EVENT_SCHEMA_VERSION } from "./event-schema-version.ts";
import type { Message, Usage } from "./messages.ts";

export { EVENT_SCHEMA_VERSION };

const count = z.number().int().nonnegative();

export const usageSchema = z
  .strictObject({ input: count, output: count, cacheRead: count, cacheWrite: count })
  .describe("Token counts (input excludes cached tokens)");

const textPart = z.strictObject({ type: z.literal("text"), text: z.string() });
const imagePart = z.strictObject({
  type: z.literal("image"),
  mediaType: z.string(),
  data: z.string(),
  file: z.string().optional(),
});
const thinkingPart = z.strictObject({
  type: z.literal("thinking"),
  text: z.string(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
});
const toolCallPart = z.strictObject({
  type: z.literal("tool_call"),
  id: z.string(),
  name: z.string(),
  arguments: z.string().describe("raw JSON text as the model wrote it"),
  providerData: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("wire fields of this call its API wants back on it (Gemini's thought signature)"),
});

export const messageSchema = z
  .discriminatedUnion("role", [
    z.strictObject({ role: z.literal("user"), content: z.array(z.discriminatedUnion("type", [textPart, imagePart])) }),
    z.strictObject({
      role: z.literal("assistant"),
      content: z.array(z.discriminatedUnion("type", [textPart, thinkingPart, toolCallPart])),
      stopReason: z.enum(["stop", "tool_use", "length", "refusal", "pause", "aborted", "error"]),
      usage: usageSchema.optional(),
      api: z.string().optional(),
      model: z.string().optional(),
      providerData: z.record(z.string(), z.unknown()).optional(),
      source: z
        .strictObject({ api: z.string(), provider: z.string(), model: z.string(), host: z.string() })
        .optional()
        .describe("the provider, model, wire API and endpoint host that wrote the reply"),
      thread: z
        .strictObject({
          mode: z.enum(["create", "continue", "whole"]),
          bytes: count,
          messages: count,
          refused: z.string().optional(),
        })
        .optional()
        .describe(
          "server-side conversation state the request used: created or continued, bytes and messages uploaded, and the error of a refused continue",
        ),
    }),
    z.strictObject({
      role: z.literal("tool"),
      toolCallId: z.string(),
      toolName: z.string(),
      content: z.string(),
      isError: z.boolean(),
      images: z.array(imagePart).optional(),
    }),
  ])
  .describe("A message of the conversation");

/** A step of the plan the model keeps with the `todo` tool (src/tools/todo.ts). */
export const todoItemSchema = z.strictObject({
  content: z.string().min(1).max(200).describe("the step, in a few words"),
  status: z.enum(["pending", "in_progress", "done"]),
});

/** One step of the model's plan and its status. */
export type TodoItem = z.infer<typeof todoItemSchema>;

export const doneReasonSchema = z.enum(["stop", "max_turns", "aborted", "error"]);

/** The events of one agent's run (its own, not its subagents'). */
const runEvents = [
  z
    .strictObject({
      type: z.literal("start"),
      schemaVersion: z.literal(EVENT_SCHEMA_VERSION),
      provider: z.string(),
      model: z.string(),
      sessionId: z.string().optional(),
    })
    .describe("A run began"),
  z
    .strictObject({ type: z.literal("turn_start"), turn: z.number().int().positive() })
    .describe("A model call began (turn 1, 2, ...)"),
  z
    .strictObject({ type: z.literal("text_delta"), text: z.string() })
    .describe("A piece of the reply's text, as it streams"),
  z.strictObject({ type: z.literal("thinking_delta"), text: z.string() }).describe("A piece of the model's reasoning"),
  z
    .strictObject({ type: z.literal("prompt_progress"), done: count, total: count })
    .describe("How many of the prompt's tokens the model has read before its first output (a local model on a CPU)"),
  z
    .strictObject({ type: z.literal("call_usage"), usage: usageSchema, model: z.string() })
    .describe(
      "The tokens of the model call in flight as the server counts them before its reply is complete (Anthropic's message_start); its usage event counts them once it completes",
    ),
  z
    .strictObject({ type: z.literal("message"), message: messageSchema })
    .describe("A message was appended to the conversation"),
  z
    .strictObject({
      type: z.literal("tool_start"),
      id: z.string(),
      name: z.string(),
      arguments: z.string(),
      summary: z.string(),
    })
    .describe("A tool call is about to run; arguments is the JSON text it runs with"),
  z
    .strictObject({
      type: z.literal("tool_output"),
      id: z.string(),
      lines: z
        .array(z.string())
        .describe("the last lines (at most 5, each at most 300 characters), terminal codes removed, secrets redacted"),
      bytes: count.describe("bytes the call has printed so far"),
    })
    .describe(
      "What a running call (bash) printed last, while it runs: at most every quarter second, only when the lines changed, never after its tool_end; the whole output comes on tool_end",
    ),
  z
    .strictObject({
      type: z.literal("tool_end"),
      id: z.string(),
      name: z.string(),
      content: z.string(),
      isError: z.boolean(),
      summary: z.string().optional(),
      diff: z.string().optional(),
      notice: z
        .string()
        .optional()
        .describe("a line for the person, not the model: an edit's new errors (docs/lsp.md)"),
      durationMs: count,
    })
    .describe("A tool call's result (every call gets exactly one, refused and failed calls included)"),
  z
    .strictObject({
      type: z.literal("retry"),
      attempt: z.number().int().positive(),
      delayMs: count,
      error: z.string(),
      discardPartial: z
        .literal(true)
        .optional()
        .describe(
          "the failed attempt had streamed deltas: drop every text_delta and thinking_delta since this turn's turn_start; the reply starts over",
        ),
    })
    .describe("A model call failed and will be retried"),
  z
    .strictObject({
      type: z.literal("usage"),
      usage: usageSchema,
      total: usageSchema,
      model: z
        .string()
        .optional()
        .describe("the model that spent them, which prices them: a subagent's may not be the run's (start's) model"),
    })
    .describe(
      "Tokens of one model call, or of the subagents a reply's tool calls ran (one event per model), and the run's total so far",
    ),
  z
    .strictObject({
      type: z.literal("compaction"),
      summary: z.string().describe("what now stands in for the removed messages"),
      removedMessages: count,
      keptMessages: count.describe("the newest messages kept verbatim after the summary"),
      tokensBefore: count,
      tokensAfter: count.describe("estimated"),
      reason: z.enum(["threshold", "overflow", "manual"]),
    })
    .describe("The older part of the conversation was replaced by a summary written by the model"),
  z
    .strictObject({ type: z.literal("compaction_stopped"), reason: z.string() })
    .describe(
      "Compactions stopped making progress (the request after each was still at the threshold, or they failed): the run compacts no more on its own; why",
    ),
  z
    .strictObject({ type: z.literal("todo"), items: z.array(todoItemSchema) })
    .describe(
      "The model's plan changed (the todo tool): the whole list, in order; it stays until the next todo event, also across a resume",
    ),
  z
    .strictObject({
      type: z.literal("done"),
      reason: doneReasonSchema,
      answer: z.string(),
      turns: count,
      usage: usageSchema,
      sessionId: z.string().optional().describe("set when the run is recorded as a session (as on start)"),
      cost: z.number().nonnegative().optional().describe("USD, when the model's prices are known"),
      error: z.string().optional(),
      stopReason: z
        .enum(["length", "refusal"])
        .optional()
        .describe(
          "how the last reply ended when it was not a plain stop: cut at the output limit (length) or declined (refusal); with no text at all, reason is error",
        ),
      outputTokens: count
        .optional()
        .describe(
          "with stopReason: the output tokens the last reply spent (reasoning included), as the server counted them",
        ),
      plan: z
        .string()
        .optional()
        .describe(
          "the Markdown plan the model proposed in this run to end plan mode (its plan tool); the run ended there, for the person to choose what follows",
        ),
      blockedBy: z
        .enum(["UserPromptSubmit"])
        .optional()
        .describe(
          "the prompt never reached the model: the hook event that refused it (reason is error, the hook's reason is in error, turns is 0); a one-shot exits 2",
        ),
      structured_output: z
        .unknown()
        .optional()
        .describe(
          "with --json-schema: the answer, validated against the schema (answer holds the same as JSON text); named as Claude Code's result names it",
        ),
    })
    .describe("The run ended; always the last event of a run"),
] as const;

/** One event of a run, without the subagent wrapper. */
const runEventSchema = z.discriminatedUnion("type", [...runEvents]);

/**
 * A subagent's event, wrapped. Not recursive: a subagent's own subagents' events come through
 * as they are, their `parentToolCallId` naming that subagent's task call.
 */
const subagentEventSchema = z
  .strictObject({
    type: z.literal("subagent"),
    parentToolCallId: z.string().describe("the id of the task tool call that started the subagent"),
    agent: z.string().describe('the named agent, or "task" for an unnamed one'),
    event: runEventSchema,
  })
  .describe("An event of a subagent's run (the task tool), as it happens; its own session records it in full");

/** Every event the loop emits; each is one line of `--output stream-json`. */
export const agentEventSchema = z.discriminatedUnion("type", [...runEvents, subagentEventSchema]);

// The message types stay hand-written interfaces (providers and sessions read them); these
// checks make any drift between them and the schema a compile error.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameMessage: Same<z.infer<typeof messageSchema>, Message> = true;
const sameUsage: Same<z.infer<typeof usageSchema>, Usage> = true;
void sameMessage;
void sameUsage;
