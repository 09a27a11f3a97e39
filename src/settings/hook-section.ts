// The `hooks` section of a settings file, in Claude Code's shape:
//   {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
// Its error policy is its own: a broken event, group or hook is reported and skipped, never
// fatal, so a typo in one hook does not stop the harness (and the valid hooks still run).
import { z } from "zod";
import { describeIssues } from "../shared/describe-issue.ts";
import { closestName } from "../shared/edit-distance.ts";
import { compileMatcher } from "./tool-names.ts";

/** What a hook's matcher is matched against, per event (Claude Code's: https://code.claude.com/docs/en/hooks#matcher-patterns). */
export type MatcherSubject = "tool" | "source" | "reason" | "notification_type" | "trigger" | "agent_type" | "nothing";

/**
 * The points a command hook can attach to, with what a settings file's matcher names for each;
 * `guards`: the event can refuse a call before it runs, so a matcher naming no tool leaves a
 * guard missing (check-names.ts). What each event does is its record in hooks/hook-events.ts.
 */
export const HOOK_EVENT_SUBJECTS = {
  PreToolUse: { matcher: "tool", guards: true },
  PostToolUse: { matcher: "tool" },
  UserPromptSubmit: { matcher: "nothing" },
  SessionStart: { matcher: "source" },
  Stop: { matcher: "nothing" },
  SessionEnd: { matcher: "reason" },
  Notification: { matcher: "notification_type" },
  PreCompact: { matcher: "trigger" },
  PostToolUseFailure: { matcher: "tool" },
  SubagentStart: { matcher: "agent_type" },
  SubagentStop: { matcher: "agent_type" },
  PermissionRequest: { matcher: "tool" },
} as const satisfies Record<string, { matcher: MatcherSubject; guards?: true }>;
export type HookEventName = keyof typeof HOOK_EVENT_SUBJECTS;
export const HOOK_EVENTS = Object.keys(HOOK_EVENT_SUBJECTS) as HookEventName[];

/** Claude Code's other events (https://code.claude.com/docs/en/hooks#hook-events): reported as not supported, not as typos. */
const CLAUDE_ONLY_EVENTS = [
  "PostCompact",
  "PermissionDenied",
  "StopFailure",
  "InstructionsLoaded",
  "ConfigChange",
  "CwdChanged",
  "FileChanged",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "WorktreeCreate",
  "WorktreeRemove",
  "Elicitation",
  "ElicitationResult",
];

/** One declared hook command, as the file says it. */
export interface HookEntry {
  event: HookEventName;
  /** As written; undefined, `""` and `*` match everything. */
  matcher?: string;
  command: string;
  /** Seconds, when given. */
  timeout?: number;
  /** `hooks.PreToolUse[0]`, for messages. */
  where: string;
}

const commandSchema = z.object({
  type: z.literal("command"),
  command: z.string().min(1).describe("run with sh -c in the working directory; the event arrives as JSON on stdin"),
  timeout: z.number().positive().optional().describe("seconds before it is killed (default 60)"),
});
const groupSchema = z.object({
  matcher: z
    .string()
    .optional()
    .describe("tool names (`Bash`, `Edit|Write`, `bash|write_file`) or a regular expression; empty or `*`: all"),
  hooks: z.array(z.unknown()),
});

/** The section's shape for editors (docs/settings.schema.json); reading it is tolerant (readHookSection). */
export const hookSectionSchema = z
  .partialRecord(
    z.enum(HOOK_EVENTS as [HookEventName, ...HookEventName[]]),
    z.array(groupSchema.extend({ hooks: z.array(commandSchema) })),
  )
  .describe(
    "commands run before and after tool calls (PostToolUseFailure: after a failed one), before a prompt is sent, before a compaction, when harness needs the person (Notification), when a subagent starts and stops, when a permission question is about to be put (PermissionRequest may answer it), when a session starts and ends and when a run stops (Claude Code's format)",
  );

/** The hooks a section declares, and a sentence for each part skipped. */
export function readHookSection(hooks: unknown, file: string): { entries: HookEntry[]; skipped: string[] } {
  const entries: HookEntry[] = [];
  const skipped: string[] = [];
  if (hooks === undefined) return { entries, skipped };
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) {
    skipped.push(`ignoring "hooks" in ${file}: it must be an object keyed by event name (${HOOK_EVENTS.join(", ")})`);
    return { entries, skipped };
  }
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      const meant = CLAUDE_ONLY_EVENTS.includes(event) ? undefined : closestName(event, HOOK_EVENTS, 3);
      skipped.push(
        `ignoring hooks.${event} in ${file}: ${meant ? `did you mean ${meant}? ` : ""}harness supports ${HOOK_EVENTS.join(", ")}`,
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      skipped.push(`ignoring hooks.${event} in ${file}: it must be a list of {"matcher", "hooks"} groups`);
      continue;
    }
    for (const [index, rawGroup] of groups.entries()) {
      const where = `hooks.${event}[${index}]`;
      const group = groupSchema.safeParse(rawGroup);
      if (!group.success) {
        skipped.push(`ignoring ${where} in ${file}: ${describeIssues(group.error)}`);
        continue;
      }
      const compiled = compileMatcher(group.data.matcher);
      if ("error" in compiled) {
        skipped.push(`ignoring ${where} in ${file}: the matcher is ${compiled.error}`);
        continue;
      }
      for (const rawHook of group.data.hooks) {
        const hook = commandSchema.safeParse(rawHook);
        if (!hook.success) {
          skipped.push(
            `ignoring a hook of ${where} in ${file}: only {"type": "command", "command": "...", "timeout": seconds} is supported`,
          );
          continue;
        }
        const { command, timeout } = hook.data;
        entries.push({ event: event as HookEventName, matcher: group.data.matcher, command, timeout, where });
      }
    }
  }
  return { entries, skipped };
}
