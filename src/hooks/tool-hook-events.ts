// The tool events' records (hook-event.ts says what a record is): PreToolUse, PostToolUse,
// PostToolUseFailure and PermissionRequest, whose matchers name tools.

import type { HookPermission } from "../core/run-tools.ts";
import { claudeNameOf, fromClaudeFields, namesOfTool, withClaudeFields } from "../settings/tool-names.ts";
import { blockReason, type PermissionAnswer, parseAnswer, permissionOf, readPermissionAnswer } from "./hook-answer.ts";
import type { HookEvent, HookFold, HookStep } from "./hook-event.ts";
import type { CommandHook } from "./hook-settings.ts";
import type { HookRun } from "./run-hook-command.ts";

/** A tool call as the tool events see it. */
export interface ToolHookInput {
  tool: string;
  callId: string;
  input: unknown;
}

/** The tool fields of a payload: the name as the hook's file speaks, the input with Claude's field names beside ours. */
function toolFields(hook: CommandHook, tool: string, input: unknown, cwd: string) {
  return {
    tool_name: hook.dialect === "claude" ? claudeNameOf(tool) : tool,
    tool_input: withClaudeFields(tool, input, cwd),
  };
}

/** What the PreToolUse hooks made of a call. */
export interface PreToolOutcome {
  input: unknown;
  isRewritten: boolean;
  permission?: HookPermission;
  block?: string;
  /** Notes for the model about hooks that failed open. */
  notes: string[];
}

export const preToolUse: HookEvent<ToolHookInput, PreToolOutcome> = {
  name: "PreToolUse",
  when: "before each call's approval, for every call whose arguments are valid",
  exit2: "refuses the call; stderr is the reason the model gets",
  answers:
    "`permissionDecision` deny refuses, allow skips the ordinary question (never a rule or protected path), ask asks even under --yes; `updatedInput` rewrites the arguments; `decision: block` or `continue: false` refuse",
  subject: (call) => namesOfTool(call.tool),
  payload: (call, hook, outcome, cwd) => ({
    ...toolFields(hook, call.tool, outcome.input, cwd),
    tool_use_id: call.callId,
  }),
  start: (call) => ({ input: call.input, isRewritten: false, notes: [] }),
  fold(outcome, run, { hook, input: call, fail, cwd }) {
    if (run.code === 2)
      return {
        outcome: { ...outcome, block: run.stderr.trim() || `a PreToolUse hook (${hook.command}) refused it` },
        done: true,
      };
    if (run.code !== 0) return { outcome: { ...outcome, notes: [...outcome.notes, fail()] } };
    const answer = parseAnswer(run.stdout);
    const block = blockReason(answer);
    if (block !== undefined) return { outcome: { ...outcome, block }, done: true };
    const updated = answer?.hookSpecificOutput?.updatedInput ?? answer?.updatedInput;
    const rewritten =
      updated === undefined
        ? {}
        : {
            input: fromClaudeFields(call.tool, updated, withClaudeFields(call.tool, outcome.input, cwd)),
            isRewritten: true,
          };
    const said = permissionOf(answer);
    // Of several hooks, an ask outweighs an allow.
    const permission = said && outcome.permission?.decision !== "ask" ? said : outcome.permission;
    return { outcome: { ...outcome, ...rewritten, ...(permission ? { permission } : {}) } };
  },
  interrupted: (outcome) => ({ ...outcome, block: "interrupted by the user" }),
  afterFailure: "; the call went on to its approval",
};

/** A finished call as the after-call events see it. */
export interface AfterToolInput extends ToolHookInput {
  content: string;
  failed: boolean;
  interrupted: boolean;
}

/** Notes an after-call hook adds to what the model gets back. */
function foldAfterCall(name: string) {
  return (notes: string[], run: HookRun, step: HookStep<AfterToolInput>): HookFold<string[]> => {
    if (run.code === 2)
      return { outcome: run.stderr.trim() ? [...notes, `${name} hook: ${run.stderr.trim()}`] : notes };
    if (run.code !== 0) {
      step.fail();
      return { outcome: notes };
    }
    const answer = parseAnswer(run.stdout);
    const added = [
      ...(answer?.decision === "block" && answer.reason ? [`${name} hook: ${answer.reason}`] : []),
      ...(answer?.hookSpecificOutput?.additionalContext ? [answer.hookSpecificOutput.additionalContext] : []),
    ];
    return { outcome: [...notes, ...added] };
  };
}

const AFTER_CALL_ANSWERS =
  "`decision: block` with `reason`, and `additionalContext`, are added to the result the model gets";

export const postToolUse: HookEvent<AfterToolInput, string[]> = {
  name: "PostToolUse",
  when: "after each call; Claude Code's files only after a call that succeeded, as Claude Code runs it, harness's own files after every call",
  exit2: "adds stderr to the result the model gets",
  answers: AFTER_CALL_ANSWERS,
  subject: (call) => namesOfTool(call.tool),
  // https://code.claude.com/docs/en/hooks#posttoolusefailure: Claude's files get PostToolUse on
  // success only; our own files' PostToolUse hooks keep seeing every call, as they always have.
  selects: (hook, call) => !call.failed || hook.dialect !== "claude",
  payload: (call, hook, _outcome, cwd) => ({
    ...toolFields(hook, call.tool, call.input, cwd),
    tool_response: { content: call.content, isError: call.failed },
    tool_use_id: call.callId,
  }),
  start: () => [],
  fold: foldAfterCall("PostToolUse"),
};

export const postToolUseFailure: HookEvent<AfterToolInput, string[]> = {
  name: "PostToolUseFailure",
  when: "after a call that failed (the tool reported an error)",
  exit2: "adds stderr to the result the model gets",
  answers: AFTER_CALL_ANSWERS,
  subject: (call) => namesOfTool(call.tool),
  selects: (_hook, call) => call.failed,
  payload: (call, hook, _outcome, cwd) => ({
    ...toolFields(hook, call.tool, call.input, cwd),
    error: call.content,
    is_interrupt: call.interrupted,
    tool_use_id: call.callId,
  }),
  start: () => [],
  fold: foldAfterCall("PostToolUseFailure"),
};

export type { PermissionAnswer } from "./hook-answer.ts";

// No `permission_suggestions`: harness's "always" offers are its own rules' shapes.
export const permissionRequest: HookEvent<ToolHookInput, PermissionAnswer | undefined> = {
  name: "PermissionRequest",
  when: "when a permission question is about to be put (chat or editor)",
  exit2: "denies the call; stderr is the message for the model",
  answers:
    "`decision.behavior` allow answers an ordinary question only (never an ask rule, a protected path or a read outside the workspace), deny always holds",
  subject: (call) => namesOfTool(call.tool),
  payload: (call, hook, _outcome, cwd) => toolFields(hook, call.tool, call.input, cwd),
  start: () => undefined,
  fold(outcome, run, { hook, fail, warn }) {
    const read = readPermissionAnswer(run);
    if ("failed" in read) fail();
    else if (read.unsupported)
      warn(`PermissionRequest hook "${hook.command}" (${hook.source}) answered with ${read.unsupported}`);
    else if (read.answer) return { outcome: read.answer, done: true };
    return { outcome };
  },
  interrupted: () => undefined,
};
