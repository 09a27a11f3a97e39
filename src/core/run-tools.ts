import { AsyncQueue } from "./async-queue.ts";
import type { AgentEvent } from "./events.ts";
import type { ToolCallPart, ToolResultMessage } from "./messages.ts";
import { parseArguments, type Tool, type ToolContext, type ToolOutput } from "./tool.ts";

/** The loop asks this before a tool runs; absent means every call is allowed. */
export type ApproveFn = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** One call waiting for a yes or no. */
export interface ApprovalRequest {
  tool: Tool;
  call: ToolCallPart;
  input: unknown;
  summary: string;
}

/** The answer; a `reason` for a refusal is passed on to the model. */
export type ApprovalDecision = { allow: true } | { allow: false; reason?: string };

/** What a batch of calls came to: results in call order, and how many had broken JSON. */
export interface ToolBatchResult {
  results: ToolResultMessage[];
  invalidJsonCount: number;
}

type Prepared =
  | { call: ToolCallPart; tool: Tool; input: unknown; summary: string; lockKey?: string }
  | { call: ToolCallPart; failed: ToolOutput; isInvalidJson?: boolean };

/**
 * Runs one reply's tool calls. Never throws: unknown tools, bad arguments, refusals, crashes
 * and interruptions all become error results, so every call gets exactly one result.
 * Approvals are asked one at a time in call order; approved calls then run concurrently,
 * except calls sharing a lock key (two edits of one file), which run in order.
 */
export async function* runToolCalls(
  calls: ToolCallPart[],
  tools: Tool[],
  context: ToolContext,
  approve: ApproveFn | undefined,
  replyWasCut: boolean,
): AsyncGenerator<AgentEvent, ToolBatchResult> {
  const prepared = calls.map((call) => prepare(call, tools, context.cwd, replyWasCut));
  const invalidJsonCount = prepared.filter((p) => "failed" in p && p.isInvalidJson).length;
  for (const [index, item] of prepared.entries()) {
    if ("failed" in item || !approve) continue;
    const decision = await approve({ tool: item.tool, call: item.call, input: item.input, summary: item.summary }, context.signal);
    if (!decision.allow) prepared[index] = { call: item.call, failed: refusal(decision.reason) };
  }

  const queue = new AsyncQueue<AgentEvent>();
  const outputs = runConcurrently(prepared, context, queue);
  void outputs.finally(() => queue.close());
  for await (const event of queue) yield event;
  const results = (await outputs).map(
    (output, index): ToolResultMessage => ({
      role: "tool",
      toolCallId: calls[index].id,
      toolName: calls[index].name,
      content: output.content,
      isError: output.isError ?? false,
    }),
  );
  for (const message of results) yield { type: "message", message };
  return { results, invalidJsonCount };
}

function prepare(call: ToolCallPart, tools: Tool[], cwd: string, replyWasCut: boolean): Prepared {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(", ");
    return { call, failed: { isError: true, content: `Error: there is no tool named "${call.name}". Available tools: ${names}.`, summary: "unknown tool" } };
  }
  const parsed = parseArguments(tool, call.arguments);
  if (!parsed.ok) {
    if (parsed.problem.kind === "invalid_json") return { call, failed: invalidJson(call, replyWasCut, parsed.problem.message), isInvalidJson: true };
    return { call, failed: { isError: true, content: `Error: invalid arguments for ${tool.name}:\n${parsed.problem.message}\nNothing was run; call it again with arguments that match its schema.`, summary: "invalid arguments" } };
  }
  return { call, tool, input: parsed.input, summary: tool.describe?.(parsed.input, cwd) ?? tool.name, lockKey: tool.lockKey?.(parsed.input, cwd) };
}

function invalidJson(call: ToolCallPart, replyWasCut: boolean, detail: string): ToolOutput {
  const why = replyWasCut
    ? "your reply hit the output token limit and the arguments were cut off"
    : `the arguments are not valid JSON (${detail})`;
  return {
    isError: true,
    content: `Error: the ${call.name} call was not run: ${why}. Make a shorter call: split large content into several smaller calls.`,
    summary: "invalid JSON arguments",
  };
}

function refusal(reason: string | undefined): ToolOutput {
  const because = reason ? ` The user said: ${reason}` : "";
  return { isError: true, content: `The user did not allow this tool call.${because}`, summary: "refused" };
}

async function runConcurrently(prepared: Prepared[], context: ToolContext, queue: AsyncQueue<AgentEvent>): Promise<ToolOutput[]> {
  const chains = new Map<string, Promise<unknown>>();
  return Promise.all(
    prepared.map((item) => {
      if ("failed" in item) {
        queue.push({ type: "tool_end", id: item.call.id, name: item.call.name, content: item.failed.content, isError: true, summary: item.failed.summary, durationMs: 0 });
        return item.failed;
      }
      const previous = item.lockKey ? chains.get(item.lockKey) : undefined;
      const run = (previous ?? Promise.resolve()).then(() => runOne(item, context, queue));
      if (item.lockKey) chains.set(item.lockKey, run);
      return run;
    }),
  );
}

async function runOne(item: Extract<Prepared, { tool: Tool }>, context: ToolContext, queue: AsyncQueue<AgentEvent>): Promise<ToolOutput> {
  const { call, tool } = item;
  const started = Date.now();
  queue.push({ type: "tool_start", id: call.id, name: call.name, arguments: call.arguments, summary: item.summary });
  let output: ToolOutput;
  if (context.signal.aborted) {
    output = { isError: true, content: "The user interrupted before this tool call ran." };
  } else {
    try {
      const result = await tool.run(item.input, context);
      output = typeof result === "string" ? { content: result } : result;
    } catch (error) {
      output = { isError: true, content: `Error: ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (context.signal.aborted) output = { ...output, content: `${output.content}\n[interrupted by the user]` };
  }
  queue.push({
    type: "tool_end",
    id: call.id,
    name: call.name,
    content: output.content,
    isError: output.isError ?? false,
    summary: output.summary,
    diff: output.diff,
    durationMs: Date.now() - started,
  });
  return output;
}
