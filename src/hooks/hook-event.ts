// What a hook event is, as a record (tool-hook-events.ts and session-hook-events.ts hold the
// records, hook-events.ts the table of them): when it runs, what its payload carries, what its
// matcher sees, what exit 2 and each answer mean, and how one hook's run folds into the event's
// outcome. command-hooks.ts has the one runner; no other file branches on an event's name
// (test/unit/hook-event-records.test.ts). Claude Code's protocol (https://code.claude.com/docs/en/hooks):
// exit 0 goes on (stdout may answer in JSON), exit 2 blocks where the event can block, any other
// exit is a non-blocking error reported on stderr.
import type { HookEventName } from "../settings/hook-section.ts";
import type { CommandHook } from "./hook-settings.ts";
import type { HookRun } from "./run-hook-command.ts";

/** What a record's fold gets besides the run. */
export interface HookStep<Input> {
  hook: CommandHook;
  input: Input;
  /** Reports this run as failed (on stderr, naming the hook) and returns that note. */
  fail(): string;
  /** Reports something else about this hook on stderr. */
  warn(message: string): void;
  /** The session's working directory (Claude's absolute `file_path` is made from it). */
  cwd: string;
}

/** One hook's effect on the event: the outcome so far, and whether the event's remaining hooks are skipped. */
export interface HookFold<Outcome> {
  outcome: Outcome;
  done?: boolean;
}

/** One hook event, as data. */
export interface HookEvent<Input, Outcome, Name extends HookEventName = HookEventName> {
  name: Name;
  /** When it runs (the hooks page's table). */
  when: string;
  /** What exit 2 means for it. */
  exit2: string;
  /** What a JSON answer (or plain stdout) on exit 0 does. */
  answers: string;
  /** The names a hook's matcher is tried against; undefined: every hook of the event runs, its matcher unread. */
  subject(input: Input): string[] | undefined;
  /** Whether a matched hook runs for this input (the dialect rules of PostToolUse). */
  selects?(hook: CommandHook, input: Input): boolean;
  /** The event's own fields of the payload (besides session_id, cwd and hook_event_name), given what earlier hooks made. */
  payload(input: Input, hook: CommandHook, outcome: Outcome, cwd: string): Record<string, unknown>;
  start(input: Input): Outcome;
  fold(outcome: Outcome, run: HookRun, step: HookStep<Input>): HookFold<Outcome>;
  /** The outcome when the run was interrupted during a hook; absent: the outcome so far. */
  interrupted?(outcome: Outcome): Outcome;
  /** Said after a failed hook's note: what happened next. */
  afterFailure?: string;
}
