// Reads the `hooks` key of the settings files (the user's, and a trusted project's), in the shape Claude Code uses:
//   {"hooks": {"PreToolUse": [{"matcher": "bash|write_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
// Only `hooks` is read here; other keys (permissions, ...) belong to other modules. Parsing is
// tolerant: a broken file or entry is reported and skipped, never fatal, so a typo in one hook
// does not stop the harness.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { describeIssues } from "../core/describe-issue.ts";

/** The points a command hook can attach to. */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "SessionStart", "Stop"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run before it is killed, unless its `timeout` says otherwise (as in Claude Code). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** One command to run, with its matcher (a tool name regex, or the SessionStart source). */
export interface CommandHook {
  event: HookEventName;
  /** Anchored regular expression; undefined matches everything. */
  matcher?: RegExp;
  command: string;
  timeoutMs: number;
  /** The settings file it came from, for messages. */
  source: string;
}

const commandSchema = z.object({
  type: z.literal("command"),
  command: z.string().min(1),
  timeout: z.number().positive().optional(),
});
const groupSchema = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) });

/** All hooks of all files, in file order then declaration order (the order they run in). */
export function loadHooks(paths: string[], warn: (message: string) => void): CommandHook[] {
  return paths.flatMap((path) => hooksOfFile(path, warn));
}

function hooksOfFile(path: string, warn: (message: string) => void): CommandHook[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return []; // no file is the usual case
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    warn(`ignoring ${path}: it is not valid JSON (${(error as Error).message}); fix the file to use its hooks`);
    return [];
  }
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  if (hooks === undefined) return [];
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) {
    warn(`ignoring "hooks" in ${path}: it must be an object keyed by event name (${HOOK_EVENTS.join(", ")})`);
    return [];
  }
  const found: CommandHook[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warn(`ignoring hooks.${event} in ${path}: harness supports ${HOOK_EVENTS.join(", ")}`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warn(`ignoring hooks.${event} in ${path}: it must be a list of {"matcher", "hooks"} groups`);
      continue;
    }
    for (const [index, rawGroup] of groups.entries()) {
      const where = `hooks.${event}[${index}] in ${path}`;
      const group = groupSchema.safeParse(rawGroup);
      if (!group.success) {
        warn(`ignoring ${where}: ${describeIssues(group.error)}`);
        continue;
      }
      const matcher = toMatcher(group.data.matcher, where, warn);
      if (matcher === null) continue;
      for (const rawHook of group.data.hooks) {
        const hook = commandSchema.safeParse(rawHook);
        if (!hook.success) {
          warn(
            `ignoring a hook of ${where}: only {"type": "command", "command": "...", "timeout": seconds} is supported`,
          );
          continue;
        }
        const timeoutMs = (hook.data.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000;
        found.push({ event: event as HookEventName, matcher, command: hook.data.command, timeoutMs, source: path });
      }
    }
  }
  return found;
}

/** `""`, `"*"` and no matcher match everything; anything else is a regex over the whole name. */
function toMatcher(
  matcher: string | undefined,
  where: string,
  warn: (message: string) => void,
): RegExp | undefined | null {
  if (matcher === undefined || matcher === "" || matcher === "*") return undefined;
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch (error) {
    warn(`ignoring ${where}: the matcher is not a valid regular expression (${(error as Error).message})`);
    return null;
  }
}
