// Command hooks: one entry of the loop's ordered tool hooks (core/run-tools.ts ToolHook). The
// protocol is Claude Code's: the event as JSON on stdin; exit 0 = go on (stdout may be JSON);
// exit 2 = block (stderr goes to the model); any other exit = a non-blocking error, reported
// on stderr. A hook that outlives its timeout is killed and the call goes ahead, with a note
// to the model and on stderr, as Claude Code does (a hook is a check the user added, not a
// sandbox: a hung checker should not wedge the session).
import type { CompactionHook } from "../core/compaction.ts";
import type { RunResult } from "../core/events.ts";
import type { HookPermission, ToolHook } from "../core/run-tools.ts";
import type { ToolOutput } from "../core/tool.ts";
import {
  blockReason,
  type PermissionAnswer,
  parseAnswer,
  permissionOf,
  readPermissionAnswer,
  readPromptAnswer,
} from "./hook-answer.ts";
import { runHookCommand, type HookRun } from "./run-hook-command.ts";
import type { CommandHook, HookEventName } from "./hook-settings.ts";
import { claudeNameOf, fromClaudeFields, namesOfTool, withClaudeFields } from "../settings/tool-names.ts";

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
  /** Runs SessionStart hooks; `source` is Claude Code's (`startup`, `resume`) and is what their matcher sees. */
  sessionStart(source: "startup" | "resume"): Promise<void>;
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

/** Claude Code's `notification_type`s that harness sends (https://code.claude.com/docs/en/hooks#notification). */
export type NotificationType = "permission_prompt";

export type { PermissionAnswer } from "./hook-answer.ts";

/** Why a session ends, in Claude Code's words: the person left the chat, or anything else (a one-shot's end, an editor closing). */
export type SessionEndReason = "prompt_input_exit" | "other";

/** What the UserPromptSubmit hooks made of a prompt: blocked (by which command, why), or sent with their context. */
export type PromptVerdict = { block: string; command: string } | { context: string[] };

export function createCommandHooks(hooks: CommandHook[], context: CommandHookContext): CommandHooks {
  // A tool is matched by each of its names, ours and Claude's (`edit_file`, `Edit`, `MultiEdit`).
  const of = (event: HookEventName, names: string[]) =>
    hooks.filter((hook) => hook.event === event && hook.matches(names));
  /** The tool fields of a payload: the name as the hook's file speaks, the input with Claude's field names beside ours. */
  const toolFields = (hook: CommandHook, name: string, input: unknown) => ({
    tool_name: hook.dialect === "claude" ? claudeNameOf(name) : name,
    tool_input: withClaudeFields(name, input, context.cwd),
  });
  /** Notes for the model about PreToolUse hooks that failed open, appended to the call's result. */
  const notes = new Map<string, string[]>();
  const base = (event: HookEventName) => ({
    session_id: self.sessionId() ?? null,
    cwd: context.cwd,
    hook_event_name: event,
  });
  const run = (hook: CommandHook, input: unknown, signal: AbortSignal) =>
    runHookCommand(hook.command, input, {
      cwd: context.cwd,
      env: { ...context.env, HARNESS_PROJECT_DIR: context.cwd, CLAUDE_PROJECT_DIR: context.cwd },
      timeoutMs: hook.timeoutMs,
      signal,
    });

  const toolHooks: ToolHook = {
    // Before the approval, as Claude Code runs PreToolUse: a hook sees refused calls too, and its
    // permissionDecision is weighed by the approver (permissions/approver.ts weighHook).
    async beforeApproval(call, input, signal) {
      let current = input;
      let isRewritten = false;
      let permission: HookPermission | undefined;
      for (const hook of of("PreToolUse", namesOfTool(call.name))) {
        const sent = toolFields(hook, call.name, current);
        const result = await run(hook, { ...base("PreToolUse"), ...sent, tool_use_id: call.id }, signal);
        if (signal.aborted) return { block: "interrupted by the user" };
        if (result.code === 2)
          return { block: result.stderr.trim() || `a PreToolUse hook (${hook.command}) refused it` };
        if (result.code !== 0) {
          const note = failureNote("PreToolUse", hook, result);
          context.warn(note);
          notes.set(call.id, [...(notes.get(call.id) ?? []), note]);
          continue;
        }
        const answer = parseAnswer(result.stdout);
        const block = blockReason(answer);
        if (block !== undefined) return { block };
        const updated = answer?.hookSpecificOutput?.updatedInput ?? answer?.updatedInput;
        if (updated !== undefined) {
          current = fromClaudeFields(call.name, updated, sent.tool_input);
          isRewritten = true;
        }
        const said = permissionOf(answer);
        if (said && permission?.decision !== "ask") permission = said;
      }
      return { ...(isRewritten ? { input: current } : {}), ...(permission ? { permission } : {}) };
    },

    // Claude Code runs PostToolUse when a tool succeeds and PostToolUseFailure when it fails
    // (https://code.claude.com/docs/en/hooks#posttoolusefailure). Claude's files get exactly that;
    // our own files' PostToolUse hooks keep seeing every call, as they always have (README, Hooks).
    async afterToolCall(call, output, input, signal) {
      const added = notes.get(call.id) ?? [];
      notes.delete(call.id);
      const names = namesOfTool(call.name);
      const failed = output.isError ?? false;
      const selected = [
        ...of("PostToolUse", names).filter((hook) => !failed || hook.dialect !== "claude"),
        ...(failed ? of("PostToolUseFailure", names) : []),
      ];
      for (const hook of selected) {
        const outcome =
          hook.event === "PostToolUseFailure"
            ? { error: output.content, is_interrupt: signal.aborted }
            : { tool_response: { content: output.content, isError: failed } };
        const payload = {
          ...base(hook.event),
          ...toolFields(hook, call.name, input),
          ...outcome,
          tool_use_id: call.id,
        };
        const result = await run(hook, payload, signal);
        if (signal.aborted) break;
        if (result.code === 2) {
          if (result.stderr.trim()) added.push(`${hook.event} hook: ${result.stderr.trim()}`);
          continue;
        }
        if (result.code !== 0) {
          context.warn(failureNote(hook.event, hook, result));
          continue;
        }
        const answer = parseAnswer(result.stdout);
        if (answer?.decision === "block" && answer.reason) added.push(`${hook.event} hook: ${answer.reason}`);
        if (answer?.hookSpecificOutput?.additionalContext) added.push(answer.hookSpecificOutput.additionalContext);
      }
      return added.length > 0 ? { content: withNotes(output, added) } : undefined;
    },
  };

  const self: CommandHooks = {
    toolHooks,
    sessionId: () => undefined,
    async userPromptSubmit(prompt, signal) {
      const added: string[] = [];
      // Claude Code runs every hook of this event: a matcher, if written, is not consulted.
      for (const hook of hooks.filter((entry) => entry.event === "UserPromptSubmit")) {
        const result = await run(hook, { ...base("UserPromptSubmit"), prompt }, signal);
        // Interrupted: the run that follows sees the abort and ends as interrupted.
        if (signal.aborted) break;
        const answer = readPromptAnswer(result);
        if ("failed" in answer) context.warn(failureNote("UserPromptSubmit", hook, result));
        else if ("block" in answer) return { block: answer.block, command: hook.command };
        else if (answer.context) added.push(answer.context);
      }
      return { context: added };
    },
    async sessionStart(source) {
      await runAll(of("SessionStart", [source]), { ...base("SessionStart"), source });
    },
    async sessionEnd(reason) {
      await runAll(of("SessionEnd", [reason]), { ...base("SessionEnd"), reason });
    },
    async stop(result) {
      await runAll(of("Stop", [""]), { ...base("Stop"), stop_hook_active: false, reason: result.reason });
    },
    async notification(message, type) {
      await runAll(of("Notification", [type]), { ...base("Notification"), message, notification_type: type });
    },
    // No `permission_suggestions`: harness's "always" offers are its own rules' shapes.
    async permissionRequest(tool, input, signal) {
      for (const hook of of("PermissionRequest", namesOfTool(tool))) {
        const result = await run(hook, { ...base("PermissionRequest"), ...toolFields(hook, tool, input) }, signal);
        if (signal.aborted) return undefined;
        const read = readPermissionAnswer(result);
        if ("failed" in read) context.warn(failureNote("PermissionRequest", hook, result));
        else if (read.unsupported)
          context.warn(`PermissionRequest hook "${hook.command}" (${hook.source}) answered with ${read.unsupported}`);
        else if (read.answer) return read.answer;
      }
      return undefined;
    },
    // Payloads as https://code.claude.com/docs/en/hooks#subagentstart and #subagentstop list them,
    // but `agent_transcript_path` (our session file is not Claude's transcript, as for `transcript_path`).
    async subagentStart(agentId, agentType) {
      const added: string[] = [];
      const input = { ...base("SubagentStart"), agent_id: agentId, agent_type: agentType };
      for (const hook of of("SubagentStart", [agentType])) {
        const result = await run(hook, input, new AbortController().signal);
        if (result.code !== 0) context.warn(failureNote("SubagentStart", hook, result));
        const extra = result.code === 0 ? parseAnswer(result.stdout)?.hookSpecificOutput?.additionalContext : undefined;
        if (extra?.trim()) added.push(extra.trim());
      }
      return added;
    },
    async subagentStop(agentId, agentType, lastMessage) {
      await runAll(of("SubagentStop", [agentType]), {
        ...base("SubagentStop"),
        stop_hook_active: false,
        agent_id: agentId,
        agent_type: agentType,
        last_assistant_message: lastMessage,
      });
    },
    // Exit 2 or {"decision": "block"} cancels the compaction (Claude Code 2.1.105's changelog;
    // https://github.com/anthropics/claude-code/issues/47618), and plain stdout on exit 0 joins
    // the summary's instructions, as Claude's own /compact argument does
    // (https://github.com/lossless-claude/lcm/issues/228 reads it from Claude's source).
    async preCompact(trigger, focus, signal) {
      const added: string[] = [];
      for (const hook of of("PreCompact", [trigger])) {
        const result = await run(hook, { ...base("PreCompact"), trigger, custom_instructions: focus ?? "" }, signal);
        if (signal.aborted) break;
        if (result.code === 2) return { block: result.stderr.trim() || `"${hook.command}" refused it` };
        if (result.code !== 0) {
          context.warn(failureNote("PreCompact", hook, result));
          continue;
        }
        const answer = parseAnswer(result.stdout);
        if (answer?.decision === "block") return { block: answer.reason?.trim() || `"${hook.command}" refused it` };
        if (!answer && result.stdout.trim()) added.push(result.stdout.trim());
      }
      return added.length > 0 ? { instructions: added.join("\n") } : {};
    },
  };
  return self;

  /** Session-level hooks only notify: failures are reported, output is not used. */
  async function runAll(selected: CommandHook[], input: { hook_event_name: HookEventName; [field: string]: unknown }) {
    for (const hook of selected) {
      const result = await run(hook, input, new AbortController().signal);
      if (result.code !== 0) context.warn(failureNote(input.hook_event_name, hook, result));
    }
  }
}

function failureNote(event: HookEventName, hook: CommandHook, result: HookRun): string {
  const what = result.timedOut
    ? `timed out after ${hook.timeoutMs / 1000} s and was killed`
    : result.failure
      ? `could not run (${result.failure})`
      : `failed with exit code ${result.code}${result.stderr.trim() ? `: ${result.stderr.trim().split("\n")[0]}` : ""}`;
  const after =
    event === "PreToolUse"
      ? "; the call went on to its approval"
      : event === "UserPromptSubmit"
        ? "; the prompt was sent"
        : "";
  return `${event} hook "${hook.command}" (${hook.source}) ${what}${after}`;
}

function withNotes(output: ToolOutput, notes: string[]): string {
  return `${output.content}\n${notes.map((note) => `[${note}]`).join("\n")}`;
}
