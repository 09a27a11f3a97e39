import { AsyncQueue } from "../shared/async-queue.ts";
import { wellFormedValue } from "../shared/well-formed.ts";
import type { AgentEvent } from "./events.ts";
import { addSpent, type ModelUsage, type ToolCallPart, type ToolResultMessage } from "./messages.ts";
import { limitToolOutput } from "./output-spill.ts";
import { parseArguments, type RunEnding, type Tool, type ToolContext, type ToolOutput } from "./tool.ts";

/** Most tool calls of one reply that run at once. A reply may ask for thousands (10,000 bash calls
 * once exhausted the process's file descriptors); the rest wait for a free slot, in order. */
export const MAX_CONCURRENT_TOOL_CALLS = 8;

/**
 * Characters one tool call's arguments may have. Past it the call fails before they are parsed,
 * and the stream parsers stop keeping them (appendArguments): a 14 MB argument was parsed, validated,
 * previewed as a diff and written, at a peak RSS of 158 MB (76 MB with the cap). 2 MiB holds any
 * file a model should write in one call; larger content goes in parts.
 */
export const MAX_TOOL_ARGUMENT_CHARS = 2 * 1024 * 1024;

/** A streamed piece of a call's arguments added to those so far; past the cap the rest is dropped (the call then fails, see above). */
export function appendArguments(sofar: string, piece: string): string {
  return sofar.length > MAX_TOOL_ARGUMENT_CHARS ? sofar : sofar + piece;
}

/** The loop asks this before a tool runs; absent means every call is allowed. */
export type ApproveFn = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** One call waiting for a yes or no. */
export interface ApprovalRequest {
  tool: Tool;
  call: ToolCallPart;
  input: unknown;
  summary: string;
  /** What a `beforeApproval` hook said of the call (`allow`: skip the ordinary question; `ask`: ask in any case); the approver weighs it. */
  hookPermission?: HookPermission;
}

/** A hook's say on whether a call needs asking: never more than an allow rule (see the approver). */
export interface HookPermission {
  decision: "allow" | "ask";
  reason?: string;
  by?: string; // who weighs in, as the question names it (absent: a PreToolUse hook)
}

/** What a hook before a call may answer: refuse it, rewrite its arguments, and (before approval) weigh in on asking. */
export interface HookVerdict {
  block?: string;
  input?: unknown;
  permission?: HookPermission;
}

/** The answer; a refusal's `reason` goes to the model. `checkAtUse` judges the file again when the tool opens it. */
export type ApprovalDecision =
  | { allow: true; checkAtUse?: ToolContext["checkAtUse"] }
  | { allow: false; reason?: string; byRule?: true }; // byRule: a rule refused it, not the person

/**
 * One hook around every tool call (the CLI's command hooks are one; an after-edit step such as
 * a formatter is another). Hooks run in list order, before the approval, before the call once
 * approved and again after it: the first to block stops the call; each sees the input and the
 * result as the hooks before it left them.
 */
export interface ToolHook {
  /**
   * Before the approval, for every call whose arguments are valid, refused ones included (an
   * audit hook sees them all): `block` refuses it, `input` replaces the arguments (what is then
   * approved), `permission` is passed to the approver, which never lets it beat a deny rule, an
   * ask rule or a protected path. Claude Code's PreToolUse hooks are one.
   */
  beforeApproval?(call: ToolCallPart, input: unknown, signal: AbortSignal): Promise<HookVerdict | void>;
  /** After approval, before the run: `block` refuses the call with that reason; `input` replaces the arguments (validated against the tool's schema again). */
  beforeToolCall?(
    call: ToolCallPart,
    input: unknown,
    signal: AbortSignal,
  ): Promise<{ block?: string; input?: unknown } | void>;
  /** After the run: `content` replaces what the model gets back, `notice` is a line for the person. The result lists the files it changed (`changedFiles`). */
  afterToolCall?(
    call: ToolCallPart,
    result: ToolOutput,
    input: unknown,
    signal: AbortSignal,
  ): Promise<{ content?: string; notice?: string } | void>;
}

/** The library's hook points: `toolHooks`, in order, after the one the options' own two callbacks make. */
export interface ToolCallHooks extends ToolHook {
  toolHooks?: readonly ToolHook[];
}

/** The hooks a run's options name, in the order they run. */
export function toolHooksOf(hooks: ToolCallHooks): ToolHook[] {
  const own = hooks.beforeToolCall || hooks.afterToolCall ? [hooks] : [];
  return [...own, ...(hooks.toolHooks ?? [])];
}

/** What a batch of calls came to: results in call order, how many had broken JSON, and the tokens the tools spent. */
export interface ToolBatchResult {
  results: ToolResultMessage[];
  invalidJsonCount: number;
  /** By model; empty when no tool called a model. */
  spent: ModelUsage[];
  /** The first call's ToolOutput.stopsRun (the run ends with it, as an error) and endsRun (it ends finished). */
  stop?: string;
  ends?: RunEnding;
}

/** What a batch of calls runs with, besides the calls. */
export interface ToolBatchOptions {
  tools: Tool[];
  context: ToolContext;
  /** Asked before each call; absent = every call is allowed. */
  approve?: ApproveFn;
  /** The reply stopped at its output limit: a call whose JSON is broken was cut off, and the model is told so. */
  replyWasCut: boolean;
  /** Run in this order around each approved call (ToolHook). */
  hooks?: readonly ToolHook[];
}

/** A call after its arguments were checked: ready to run (once approved), or failed with its result. */
type Prepared =
  | {
      kind: "runnable";
      call: ToolCallPart;
      tool: Tool;
      input: unknown;
      summary: string;
      lockKey?: string;
      checkAtUse?: ToolContext["checkAtUse"];
      /** A hook rewrote the arguments: tool_start shows the ones that run. */
      isRewritten?: true;
      hookPermission?: HookPermission;
    }
  | { kind: "failed"; call: ToolCallPart; failed: ToolOutput; isInvalidJson?: boolean };

/**
 * Runs one reply's tool calls. Never throws: unknown tools, bad arguments, refusals, crashes
 * and interruptions all become error results, so every call gets exactly one result.
 * Approvals are asked one at a time in call order; approved calls then run concurrently,
 * except calls sharing a lock key (two edits of one file), which run in order, and edits, which
 * wait for the reply's commands: a command may have moved or swapped what an edit names, and
 * the edit is checked again where its file is after them (ToolContext.checkAtUse).
 */
export async function* runToolCalls(
  calls: ToolCallPart[],
  { tools, context, approve, replyWasCut, hooks = [] }: ToolBatchOptions,
): AsyncGenerator<AgentEvent, ToolBatchResult> {
  const prepared = calls.map((call) => prepare(call, tools, context.cwd, replyWasCut));
  const invalidJsonCount = prepared.filter((p) => p.kind === "failed" && p.isInvalidJson).length;
  for (const [index, unchecked] of prepared.entries()) {
    if (unchecked.kind === "failed") continue;
    const item = context.signal.aborted ? unchecked : await checkBefore(hooks, unchecked, context, "beforeApproval");
    if (item.kind === "failed") {
      prepared[index] = { ...item, call: unchecked.call };
      continue;
    }
    prepared[index] = item;
    if (!approve) {
      // No approver, nobody to ask: a hook that wants the call asked about refuses it.
      if (item.hookPermission?.decision === "ask")
        prepared[index] = { kind: "failed", call: item.call, failed: askedWithoutApprover(item) };
      continue;
    }
    const { tool, call, input, summary, hookPermission } = item;
    const decision = await approve(
      { tool, call, input, summary, ...(hookPermission ? { hookPermission } : {}) },
      context.signal,
    );
    prepared[index] = decision.allow
      ? { ...item, checkAtUse: decision.checkAtUse }
      : {
          kind: "failed",
          call: item.call,
          failed: context.signal.aborted ? { ...INTERRUPTED, summary: "interrupted" } : refusal(decision),
        };
  }

  const queue = new AsyncQueue<AgentEvent>();
  const outputs = runConcurrently(prepared, context, queue, hooks);
  void outputs.finally(() => queue.close());
  for await (const event of queue) yield event;
  const finished = await outputs;
  const results = finished.map(
    (output, index): ToolResultMessage => ({
      role: "tool",
      toolCallId: calls[index].id,
      toolName: calls[index].name,
      content: output.content,
      isError: output.isError ?? false,
      ...(output.images?.length ? { images: output.images } : {}),
    }),
  );
  for (const message of results) yield { type: "message", message };
  const spent = finished
    .flatMap((output) => output.spent ?? [])
    .reduce<ModelUsage[]>((all, { model, usage }) => addSpent(all, model, usage), []);
  const stop = finished.find((output) => output.stopsRun)?.stopsRun;
  const ends = finished.find((output) => output.endsRun)?.endsRun;
  return { results, invalidJsonCount, spent, ...(stop ? { stop } : {}), ...(ends ? { ends } : {}) };
}

/** The one-line trace a call showed when it ran (`bash> ls`), for a replayed conversation; a call that could not run shows why. */
export function describeCall(call: ToolCallPart, tools: Tool[], cwd: string): string {
  const prepared = prepare(call, tools, cwd, false);
  return prepared.kind === "failed" ? `${call.name}: ${prepared.failed.summary ?? "not run"}` : prepared.summary;
}

function prepare(call: ToolCallPart, tools: Tool[], cwd: string, replyWasCut: boolean): Prepared {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(", ");
    return {
      kind: "failed",
      call,
      failed: {
        isError: true,
        content: `Error: there is no tool named "${call.name}". Available tools: ${names}.`,
        summary: "unknown tool",
      },
    };
  }
  if (call.arguments.length > MAX_TOOL_ARGUMENT_CHARS)
    return {
      kind: "failed",
      call,
      failed: {
        isError: true,
        content: `Error: the ${call.name} call was not run: its arguments are longer than ${MAX_TOOL_ARGUMENT_CHARS / 1024 / 1024} MiB, the most one call may carry, so they were not read. Send large content in parts: several calls, each well under the cap.`,
        summary: "arguments too large",
      },
    };
  const parsed = parseArguments(tool, call.arguments);
  if (!parsed.ok) {
    if (parsed.problem.kind === "invalid_json")
      return {
        kind: "failed",
        call,
        failed: invalidJson(call, replyWasCut, parsed.problem.message),
        isInvalidJson: true,
      };
    return {
      kind: "failed",
      call,
      failed: {
        isError: true,
        content: `Error: invalid arguments for ${tool.name}:\n${parsed.problem.message}\nNothing was run; call it again with arguments that match its schema.`,
        summary: "invalid arguments",
      },
    };
  }
  return {
    kind: "runnable",
    call,
    tool,
    input: parsed.input,
    summary: tool.describe?.(parsed.input, cwd) ?? tool.name,
    lockKey: tool.lockKey?.(parsed.input, cwd),
  };
}

/** Worded by cause: a reply cut at the output limit wants a shorter call; malformed JSON wants well-formed JSON. */
function invalidJson(call: ToolCallPart, replyWasCut: boolean, detail: string): ToolOutput {
  if (replyWasCut) {
    return {
      isError: true,
      content: `Error: the ${call.name} call was not run: your reply hit the output token limit and the arguments were cut off. Make a shorter call: split large content into several smaller calls.`,
      summary: "arguments cut off",
    };
  }
  return {
    isError: true,
    content: `Error: the ${call.name} call was not run: its arguments are not valid JSON (${detail}). Call it again with the arguments as one well-formed JSON object.`,
    summary: "invalid JSON arguments",
  };
}

/** The summary of a call the approval refused (a rule, the person, nobody to ask): what `--format claude` counts as a permission denial. */
export const REFUSED_SUMMARY = "refused";

/** A call the user's interrupt (Esc, Ctrl-C) stopped before it ran, at its approval question or after. */
const INTERRUPTED: ToolOutput = { isError: true, content: "The user interrupted before this tool call ran." };

function askedWithoutApprover({ tool, hookPermission }: Runnable): ToolOutput {
  const reason = hookPermission?.reason ? ` (${hookPermission.reason})` : "";
  return {
    isError: true,
    content: `The ${tool.name} call was not run: a hook asks before it${reason}, and no one is there to approve it.`,
    summary: REFUSED_SUMMARY,
  };
}

function refusal({ reason, byRule }: { reason?: string; byRule?: true }): ToolOutput {
  const because = reason ? ` The user said: ${reason}` : "";
  const content = byRule ? `This tool call was refused: ${reason}` : `The user did not allow this tool call.${because}`;
  return { isError: true, content, summary: REFUSED_SUMMARY };
}

async function runConcurrently(
  prepared: Prepared[],
  context: ToolContext,
  queue: AsyncQueue<AgentEvent>,
  hooks: readonly ToolHook[],
): Promise<ToolOutput[]> {
  const chains = new Map<string, Promise<unknown>>();
  const inSlot = slots(MAX_CONCURRENT_TOOL_CALLS);
  const commands: Promise<unknown>[] = [];
  const runs = prepared.map((item) => {
    if (item.kind === "failed") {
      queue.push({
        type: "tool_end",
        id: item.call.id,
        name: item.call.name,
        content: item.failed.content,
        isError: true,
        summary: item.failed.summary,
        durationMs: 0,
      });
      return item.failed;
    }
    if (item.tool.kind !== "execute") return item;
    const run = inSlot(() => runOne(item, context, queue, hooks));
    commands.push(run);
    return run;
  });
  const commandsDone = Promise.allSettled(commands);
  return Promise.all(
    runs.map((item) => {
      if (item instanceof Promise || !("tool" in item)) return item;
      const after = item.tool.kind === "edit" ? commandsDone : Promise.resolve();
      const previous = item.lockKey ? chains.get(item.lockKey) : undefined;
      // A call waiting for commands or its predecessor on the same lock key holds no slot meanwhile.
      const run = Promise.all([previous, after]).then(() => inSlot(() => runOne(item, context, queue, hooks)));
      if (item.lockKey) chains.set(item.lockKey, run);
      return run;
    }),
  );
}

/** Runs tasks given to it at most `size` at a time, the others in the order they came. */
export function slots(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

type Runnable = Extract<Prepared, { kind: "runnable" }>;

async function runOne(
  prepared: Runnable,
  context: ToolContext,
  queue: AsyncQueue<AgentEvent>,
  hooks: readonly ToolHook[],
): Promise<ToolOutput> {
  const { call, tool } = prepared;
  const started = Date.now();
  let item = prepared;
  if (!context.signal.aborted) {
    const checked = await checkBefore(hooks, prepared, context, "beforeToolCall");
    if (checked.kind === "failed") {
      queue.push({
        type: "tool_end",
        id: call.id,
        name: call.name,
        content: checked.failed.content,
        isError: true,
        summary: checked.failed.summary,
        durationMs: Date.now() - started,
      });
      return checked.failed;
    }
    item = checked;
  }
  const args = item.isRewritten ? JSON.stringify(item.input) : call.arguments;
  queue.push({ type: "tool_start", id: call.id, name: call.name, arguments: args, summary: item.summary });
  let output: ToolOutput;
  if (context.signal.aborted) {
    output = INTERRUPTED;
  } else {
    try {
      const emit = (event: AgentEvent) => queue.push(event);
      const result = await tool.run(item.input, { ...context, callId: call.id, checkAtUse: item.checkAtUse, emit });
      output = typeof result === "string" ? { content: result } : result;
    } catch (error) {
      output = {
        isError: true,
        content: `Error: ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    if (context.signal.aborted) output = { ...output, content: `${output.content}\n[interrupted by the user]` };
    output = await checkAfter(hooks, item, output, context.signal);
    output = limitToolOutput(output, call.id, context); // what the model and the session get is bounded
    // An MCP server's JSON or a tool's text may hold a lone surrogate, which a strict server refuses (shared/well-formed.ts).
    output = wellFormedValue(output);
  }
  queue.push({
    type: "tool_end",
    id: call.id,
    name: call.name,
    content: output.content,
    isError: output.isError ?? false,
    summary: output.summary,
    diff: output.diff,
    notice: output.notice,
    durationMs: Date.now() - started,
  });
  return output;
}

/** Runs each hook's `beforeApproval` or `beforeToolCall` in order, on the input the ones before left. */
async function checkBefore(
  hooks: readonly ToolHook[],
  item: Runnable,
  context: ToolContext,
  phase: "beforeApproval" | "beforeToolCall",
): Promise<Runnable | { kind: "failed"; failed: ToolOutput }> {
  let checked = item;
  for (const hook of hooks) {
    const before = hook[phase];
    if (!before) continue;
    const next = await checkBeforeOne(before.bind(hook), checked, context);
    if (next.kind === "failed") return next;
    checked = next;
  }
  return checked;
}

/** One `beforeToolCall`: a block, a throw or a rewrite that fails validation means the call does not run. */
async function checkBeforeOne(
  before: (call: ToolCallPart, input: unknown, signal: AbortSignal) => Promise<HookVerdict | void>,
  unweighed: Runnable,
  context: ToolContext,
): Promise<Runnable | { kind: "failed"; failed: ToolOutput }> {
  const { call, tool } = unweighed;
  let verdict: HookVerdict | void;
  try {
    verdict = await before(call, unweighed.input, context.signal);
  } catch (error) {
    return {
      kind: "failed",
      failed: {
        isError: true,
        content: `Error: the ${tool.name} call was not run: a beforeToolCall hook failed: ${error instanceof Error ? error.message : String(error)}`,
        summary: "blocked by a hook",
      },
    };
  }
  if (verdict?.block !== undefined)
    return {
      kind: "failed",
      failed: {
        isError: true,
        content: `The ${tool.name} call was blocked by a hook: ${verdict.block}`,
        summary: "blocked by a hook",
      },
    };
  // Of several hooks' say, an ask outweighs an allow.
  const permission = verdict?.permission;
  const item =
    permission && unweighed.hookPermission?.decision !== "ask"
      ? { ...unweighed, hookPermission: permission }
      : unweighed;
  if (verdict?.input === undefined) return item;
  const parsed = parseArguments(tool, JSON.stringify(verdict.input));
  if (!parsed.ok) {
    return {
      kind: "failed",
      failed: {
        isError: true,
        content: `Error: a hook rewrote the ${tool.name} arguments into ones its schema rejects:\n${parsed.problem.message}\nNothing was run.`,
        summary: "invalid rewritten arguments",
      },
    };
  }
  return {
    ...item,
    input: parsed.input,
    summary: tool.describe?.(parsed.input, context.cwd) ?? tool.name,
    lockKey: tool.lockKey?.(parsed.input, context.cwd),
    isRewritten: true,
  };
}

/**
 * Runs each hook's `afterToolCall` in order, on the result the ones before left; a throw keeps
 * that result and adds a note, since the tool already ran.
 */
async function checkAfter(
  hooks: readonly ToolHook[],
  item: Runnable,
  output: ToolOutput,
  signal: AbortSignal,
): Promise<ToolOutput> {
  let result = output;
  for (const hook of hooks) {
    if (!hook.afterToolCall) continue;
    try {
      const verdict = await hook.afterToolCall(item.call, result, item.input, signal);
      result = { ...result, content: verdict?.content ?? result.content, notice: verdict?.notice ?? result.notice };
    } catch (error) {
      result = {
        ...result,
        content: `${result.content}\n[an afterToolCall hook failed: ${error instanceof Error ? error.message : String(error)}]`,
      };
    }
  }
  return result;
}
