// The session events' records (hook-event.ts says what a record is): the prompt, the session's
// start and end, a run's stop, notifications, subagents and compaction.
import type { RunResult } from "../core/events.ts";
import type { HookEventName } from "../settings/hook-section.ts";
import { parseAnswer, readPromptAnswer } from "./hook-answer.ts";
import type { HookEvent } from "./hook-event.ts";

/** What the UserPromptSubmit hooks made of a prompt: blocked (by which command, why), or sent with their context. */
export type PromptVerdict = { block: string; command: string } | { context: string[] };

export const userPromptSubmit: HookEvent<{ prompt: string }, PromptVerdict, "UserPromptSubmit"> = {
  name: "UserPromptSubmit",
  when: "before each prompt is sent (one-shot, each stream-json line, each chat line, an editor's prompt)",
  exit2: "blocks the prompt: it never reaches the model; stderr is the reason, for the person",
  answers:
    "`decision: block` or `continue: false` block; plain stdout or `additionalContext` is added after the prompt for the model",
  // Claude Code runs every hook of this event: a matcher, if written, is not consulted.
  subject: () => undefined,
  payload: ({ prompt }) => ({ prompt }),
  start: () => ({ context: [] }),
  fold(verdict, run, { hook, fail }) {
    const answer = readPromptAnswer(run);
    if ("failed" in answer) fail();
    else if ("block" in answer) return { outcome: { block: answer.block, command: hook.command }, done: true };
    else if (answer.context && "context" in verdict)
      return { outcome: { context: [...verdict.context, answer.context] } };
    return { outcome: verdict };
  },
  afterFailure: "; the prompt was sent",
};

/** Runs the hooks and reports their failures; their output is not used. */
function notifyOnly<Input>(
  name: HookEventName,
  when: string,
  subject: (input: Input) => string[] | undefined,
  payload: (input: Input) => Record<string, unknown>,
): HookEvent<Input, undefined> {
  return {
    name,
    when,
    exit2: "a failure, reported on stderr (the event cannot block)",
    answers: "none: the output is not used",
    subject,
    payload,
    start: () => undefined,
    fold(_outcome, run, { fail }) {
      if (run.code !== 0) fail();
      return { outcome: undefined };
    },
  };
}

/** Why a session ends, in Claude Code's words: the person left the chat, or anything else (a one-shot's end, an editor closing). */
export type SessionEndReason = "prompt_input_exit" | "other";

// Claude Code adds a SessionStart hook's plain stdout, or its `additionalContext`, to the context
// (https://code.claude.com/docs/en/hooks#sessionstart-decision-control); it cannot block.
export const sessionStart: HookEvent<{ source: "startup" | "resume" }, string[]> = {
  name: "SessionStart",
  when: "when a session starts (`startup`) or is resumed (`resume`)",
  exit2: "a failure, reported on stderr (the event cannot block)",
  answers: "plain stdout or `additionalContext` is added for the model before the session's next prompt",
  subject: ({ source }) => [source],
  payload: ({ source }) => ({ source }),
  start: () => [],
  fold(added, run, { fail }) {
    const answer = readPromptAnswer(run);
    if (run.code !== 0 || "failed" in answer) {
      fail();
      return { outcome: added };
    }
    return { outcome: "context" in answer && answer.context ? [...added, answer.context] : added };
  },
};

export const sessionEnd = notifyOnly<{ reason: SessionEndReason }>(
  "SessionEnd",
  "as the session closes: `prompt_input_exit` when the person leaves a chat, `other` otherwise",
  ({ reason }) => [reason],
  ({ reason }) => ({ reason }),
);

export const stop = notifyOnly<{ result: RunResult }>(
  "Stop",
  "after each run ends; it cannot make the agent go on",
  () => undefined,
  ({ result }) => ({ stop_hook_active: false, reason: result.reason }),
);

/** Claude Code's `notification_type`s that harness sends (https://code.claude.com/docs/en/hooks#notification). */
export type NotificationType = "permission_prompt";

export const notification = notifyOnly<{ message: string; type: NotificationType }>(
  "Notification",
  "when harness needs the person: a permission question is put (in a chat or to an editor; never headless)",
  ({ type }) => [type],
  ({ message, type }) => ({ message, notification_type: type }),
);

// Payloads as https://code.claude.com/docs/en/hooks#subagentstart and #subagentstop list them,
// but `agent_transcript_path` (our session file is not Claude's transcript, as for `transcript_path`).
export const subagentStop = notifyOnly<{ agentId: string; agentType: string; lastMessage: string }>(
  "SubagentStop",
  "when a `task` child's run ends; like Stop, it cannot make it go on",
  ({ agentType }) => [agentType],
  ({ agentId, agentType, lastMessage }) => ({
    stop_hook_active: false,
    agent_id: agentId,
    agent_type: agentType,
    last_assistant_message: lastMessage,
  }),
);

export const subagentStart: HookEvent<{ agentId: string; agentType: string }, string[]> = {
  name: "SubagentStart",
  when: "before a `task` child's first request",
  exit2: "a failure, reported on stderr (the child starts)",
  answers: "`additionalContext` is added to the child's task",
  subject: ({ agentType }) => [agentType],
  payload: ({ agentId, agentType }) => ({ agent_id: agentId, agent_type: agentType }),
  start: () => [],
  fold(added, run, { fail }) {
    if (run.code !== 0) {
      fail();
      return { outcome: added };
    }
    const extra = parseAnswer(run.stdout)?.hookSpecificOutput?.additionalContext?.trim();
    return { outcome: extra ? [...added, extra] : added };
  },
};

// Exit 2 or {"decision": "block"} cancels the compaction (Claude Code 2.1.105's changelog;
// https://github.com/anthropics/claude-code/issues/47618), and plain stdout on exit 0 joins
// the summary's instructions, as Claude's own /compact argument does
// (https://github.com/lossless-claude/lcm/issues/228 reads it from Claude's source).
/** What the PreCompact hooks said: a refusal, or instructions for the summary. */
export interface PreCompactOutcome {
  block?: string;
  added: string[];
}

export const preCompact: HookEvent<{ trigger: "manual" | "auto"; focus?: string }, PreCompactOutcome> = {
  name: "PreCompact",
  when: "before a compaction, `manual` (/compact) or `auto`",
  exit2: "cancels the compaction (an automatic one goes on uncompacted); stderr is the reason",
  answers: "`decision: block` cancels it; plain stdout joins the summary's instructions",
  subject: ({ trigger }) => [trigger],
  payload: ({ trigger, focus }) => ({ trigger, custom_instructions: focus ?? "" }),
  start: () => ({ added: [] }),
  fold(outcome, run, { hook, fail }) {
    if (run.code === 2)
      return { outcome: { ...outcome, block: run.stderr.trim() || `"${hook.command}" refused it` }, done: true };
    if (run.code !== 0) {
      fail();
      return { outcome };
    }
    const answer = parseAnswer(run.stdout);
    if (answer?.decision === "block")
      return { outcome: { ...outcome, block: answer.reason?.trim() || `"${hook.command}" refused it` }, done: true };
    if (!answer && run.stdout.trim()) return { outcome: { ...outcome, added: [...outcome.added, run.stdout.trim()] } };
    return { outcome };
  },
};
