// Command hooks: one entry of the loop's ordered tool hooks (core/run-tools.ts ToolHook) plus the
// session-level points, all through one runner over the events' records (hook-event.ts). A hook
// that outlives its timeout is killed and the call goes ahead, with a note to the model and on
// stderr, as Claude Code does (a hook is a check the user added, not a sandbox: a hung checker
// should not wedge the session).

import type { CompactionHook } from "../core/compaction.ts";
import type { RunResult } from "../core/events.ts";
import type { ToolHook } from "../core/run-tools.ts";
import type { ToolOutput } from "../core/tool.ts";
import { debugLog } from "../shared/debug-log.ts";
import type { HookEvent } from "./hook-event.ts";
import type { CommandHook } from "./hook-settings.ts";
import { type HookRun, runHookCommand } from "./run-hook-command.ts";
import {
  type NotificationType,
  notification,
  type PromptVerdict,
  preCompact,
  type SessionEndReason,
  sessionEnd,
  sessionStart,
  stop,
  subagentStart,
  subagentStop,
  userPromptSubmit,
} from "./session-hook-events.ts";
import {
  type PermissionAnswer,
  permissionRequest,
  postToolUse,
  postToolUseFailure,
  preToolUse,
} from "./tool-hook-events.ts";

/** What the command hooks need from the session they serve. */
export interface CommandHookContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Reports hook failures and timeouts (the CLI writes them on stderr). */
  warn(message: string): void;
}

/** The tool hook plus the session-level points, ready to wire into an Agent. */
export interface CommandHooks {
  /** PreToolUse and PostToolUse, as one entry of the agent's tool hooks. */
  toolHooks: ToolHook;
  /** The session id hooks are told (`session_id`); the agent they serve sets it. Null when there are no sessions. */
  sessionId: () => string | undefined;
  /**
   * Runs UserPromptSubmit hooks on a prompt about to be sent. The first that refuses blocks it
   * (the prompt never reaches the model; the reason is for the person); what they add is context
   * for the model, sent beside the prompt.
   */
  userPromptSubmit(prompt: string, signal: AbortSignal): Promise<PromptVerdict>;
  /**
   * Runs SessionStart hooks; `source` is Claude Code's (`startup`, `resume`) and is what their
   * matcher sees. What they add is kept for the model until the next prompt (takeStartContext).
   */
  sessionStart(source: "startup" | "resume"): Promise<void>;
  /** The SessionStart hooks' context not yet sent, once: the next prompt carries it. */
  takeStartContext(): string[];
  /** Runs SessionEnd hooks as the session closes; `reason` is Claude Code's and is what their matcher sees. */
  sessionEnd(reason: SessionEndReason): Promise<void>;
  /** Runs Stop hooks after a run ends. Their output is not used: they cannot make the agent go on. */
  stop(result: RunResult): Promise<void>;
  /**
   * Runs Notification hooks: harness needs the person (a permission question is put). Their
   * matcher sees `notification_type`; their output is not used (Claude Code's Notification has
   * no decision control), so the model never sees it.
   */
  notification(message: string, type: NotificationType): Promise<void>;
  /**
   * Runs PermissionRequest hooks on a question about to be put (matched by the tool's names):
   * the first that answers decides; none: undefined, and the question is put.
   */
  permissionRequest(tool: string, input: unknown, signal: AbortSignal): Promise<PermissionAnswer | undefined>;
  /** Runs PreCompact hooks before a compaction (the Agent's beforeCompaction). */
  preCompact: CompactionHook;
  /**
   * Runs SubagentStart hooks before a `task` child's first request (their matcher sees
   * `agent_type`); what they add (`additionalContext`) is context for the child.
   */
  subagentStart(agentId: string, agentType: string): Promise<string[]>;
  /** Runs SubagentStop hooks when a child's run ends; like Stop, their output is not used. */
  subagentStop(agentId: string, agentType: string, lastMessage: string): Promise<void>;
}

export type { NotificationType, PromptVerdict, SessionEndReason } from "./session-hook-events.ts";
export type { PermissionAnswer } from "./tool-hook-events.ts";

export function createCommandHooks(hooks: CommandHook[], context: CommandHookContext): CommandHooks {
  /** Notes for the model about PreToolUse hooks that failed open, appended to the call's result. */
  const notes = new Map<string, string[]>();
  const never = new AbortController().signal;

  const fire = async <Input, Outcome>(event: HookEvent<Input, Outcome>, input: Input, signal = never) =>
    (await fireHooks(event, input, signal)).outcome;

  /** The one runner: each matching hook of the event in turn, folded into the event's outcome by its record. */
  async function fireHooks<Input, Outcome>(
    event: HookEvent<Input, Outcome>,
    input: Input,
    signal: AbortSignal,
  ): Promise<{ outcome: Outcome; interrupted: boolean }> {
    let outcome = event.start(input);
    const subject = event.subject(input);
    for (const hook of hooks) {
      if (hook.event !== event.name || (subject && !hook.matches(subject))) continue;
      if (event.selects && !event.selects(hook, input)) continue;
      const payload = {
        session_id: self.sessionId() ?? null,
        cwd: context.cwd,
        hook_event_name: event.name,
        ...event.payload(input, hook, outcome, context.cwd),
      };
      const result = await runHookCommand(hook.command, payload, {
        cwd: context.cwd,
        env: { ...context.env, HARNESS_PROJECT_DIR: context.cwd, CLAUDE_PROJECT_DIR: context.cwd },
        timeoutMs: hook.timeoutMs,
        signal,
      });
      debugLog("hooks", () => `${event.name} "${hook.command}" (${hook.source}) -> ${describeEnd(result)}`);
      if (signal.aborted)
        return { outcome: event.interrupted ? event.interrupted(outcome) : outcome, interrupted: true };
      const fail = () => {
        const note = failureNote(event, hook, result);
        context.warn(note);
        return note;
      };
      const step = event.fold(outcome, result, { hook, input, fail, warn: context.warn, cwd: context.cwd });
      outcome = step.outcome;
      if (step.done) break;
    }
    return { outcome, interrupted: false };
  }

  const toolHooks: ToolHook = {
    // Before the approval, as Claude Code runs PreToolUse: a hook sees refused calls too, and its
    // permissionDecision is weighed by the approver (permissions/approver.ts weighHook).
    async beforeApproval(call, input, signal) {
      const outcome = await fire(preToolUse, { tool: call.name, callId: call.id, input }, signal);
      if (outcome.notes.length > 0) notes.set(call.id, outcome.notes);
      if (outcome.block !== undefined) return { block: outcome.block };
      return {
        ...(outcome.isRewritten ? { input: outcome.input } : {}),
        ...(outcome.permission ? { permission: outcome.permission } : {}),
      };
    },
    async afterToolCall(call, output, input, signal) {
      const added = notes.get(call.id) ?? [];
      notes.delete(call.id);
      const finished = {
        tool: call.name,
        callId: call.id,
        input,
        content: output.content,
        failed: output.isError ?? false,
        interrupted: signal.aborted,
      };
      // The two after-call events run as one list, as Claude Code's do: an interrupt during one ends both.
      const after = await fireHooks(postToolUse, finished, signal);
      added.push(...after.outcome);
      if (!after.interrupted) added.push(...(await fire(postToolUseFailure, finished, signal)));
      return added.length > 0 ? { content: withNotes(output, added) } : undefined;
    },
  };

  let startContext: string[] = [];
  const self: CommandHooks = {
    toolHooks,
    sessionId: () => undefined,
    userPromptSubmit: (prompt, signal) => fire(userPromptSubmit, { prompt }, signal),
    async sessionStart(source) {
      startContext = [...startContext, ...(await fire(sessionStart, { source }))];
    },
    takeStartContext() {
      const context = startContext;
      startContext = [];
      return context;
    },
    sessionEnd: (reason) => fire(sessionEnd, { reason }),
    stop: (result) => fire(stop, { result }),
    notification: (message, type) => fire(notification, { message, type }),
    permissionRequest: (tool, input, signal) => fire(permissionRequest, { tool, callId: "", input }, signal),
    subagentStart: (agentId, agentType) => fire(subagentStart, { agentId, agentType }),
    subagentStop: (agentId, agentType, lastMessage) => fire(subagentStop, { agentId, agentType, lastMessage }),
    async preCompact(trigger, focus, signal) {
      const outcome = await fire(preCompact, { trigger, focus }, signal);
      if (outcome.block !== undefined) return { block: outcome.block };
      return outcome.added.length > 0 ? { instructions: outcome.added.join("\n") } : {};
    },
  };
  return self;
}

function describeEnd(result: HookRun): string {
  if (result.timedOut) return "timed out";
  if (result.failure) return `could not run: ${result.failure}`;
  return `exit ${result.code}, ${result.stdout.length} chars out, ${result.stderr.length} chars err`;
}

function failureNote(event: HookEvent<never, unknown>, hook: CommandHook, result: HookRun): string {
  const what = result.timedOut
    ? `timed out after ${hook.timeoutMs / 1000} s and was killed`
    : result.failure
      ? `could not run (${result.failure})`
      : `failed with exit code ${result.code}${result.stderr.trim() ? `: ${result.stderr.trim().split("\n")[0]}` : ""}`;
  return `${event.name} hook "${hook.command}" (${hook.source}) ${what}${event.afterFailure ?? ""}`;
}

function withNotes(output: ToolOutput, notes: string[]): string {
  return `${output.content}\n${notes.map((note) => `[${note}]`).join("\n")}`;
}
