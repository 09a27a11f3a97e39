// The command hooks of the settings files (the user's, and a trusted project's), read through
// the one settings reader (settings/settings-file.ts; the section's own tolerant policy is in
// settings/hook-section.ts): each becomes a CommandHook with its matcher compiled as Claude
// Code reads matchers, over harness's and Claude's names of a tool (settings/tool-names.ts).

import { type HookEventName, readHookSection } from "../settings/hook-section.ts";
import {
  readSettingsFile,
  type SettingsDialect,
  SettingsError,
  type SettingsSource,
} from "../settings/settings-file.ts";
import { compileMatcher } from "../settings/tool-names.ts";

export { HOOK_EVENTS, type HookEventName } from "../settings/hook-section.ts";

/** Seconds a hook may run before it is killed, unless its `timeout` says otherwise (as in Claude Code). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** One command to run, with its matcher (over a tool's names, or the SessionStart source). */
export interface CommandHook {
  event: HookEventName;
  /** Whether the hook applies to a subject known by these names (a tool: ours and Claude's). */
  matches(names: string[]): boolean;
  /** The matcher as written, for messages and the name check; undefined: every subject. */
  matcher?: string;
  command: string;
  timeoutMs: number;
  /** The settings file it came from, for messages. */
  source: string;
  /** `hooks.PreToolUse[0]`, for messages. */
  where: string;
  /** Whose payload it gets: a hook from a Claude Code file is told Claude's tool names (`Write`, `mcp__srv__x`). */
  dialect: SettingsDialect;
}

/** All hooks of all files, in file order then declaration order (the order they run in). */
export function loadHooks(sources: SettingsSource[], warn: (message: string) => void): CommandHook[] {
  return sources.flatMap((source) => hooksOfFile(source, warn));
}

function hooksOfFile(source: SettingsSource, warn: (message: string) => void): CommandHook[] {
  let hooks: unknown;
  try {
    hooks = readSettingsFile(source)?.hooks;
  } catch (error) {
    // The permission setup read the same file first and stopped the run; a library caller may not have.
    if (!(error instanceof SettingsError)) throw error;
    warn(`ignoring the hooks of ${source.path}: ${error.message}`);
    return [];
  }
  const { entries, skipped } = readHookSection(hooks, source.path);
  for (const line of skipped) warn(line);
  return entries.map((entry) => {
    const compiled = compileMatcher(entry.matcher);
    return {
      event: entry.event,
      // hook-section.ts already skipped a matcher that does not compile.
      matches: typeof compiled === "function" ? compiled : () => false,
      matcher: entry.matcher,
      command: entry.command,
      timeoutMs: (entry.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000,
      source: source.path,
      where: entry.where,
      dialect: source.dialect,
    };
  });
}
