// A rule or hook matcher that can never match is an error, not silence: once a session knows
// its tools (built-in, the task tool, MCP servers'), every permission rule and tool-hook matcher
// of every settings file is checked against them, harness's names and Claude Code's
// (tool-names.ts). Each problem names the file, the entry and the nearest valid name. A problem
// in a guard (a deny or ask rule, a PreToolUse matcher) stops a headless run before any tool runs
// (exit 2): a guard the user believes in is missing. Elsewhere it is a warning.

import type { Tool } from "../core/tool.ts";
import { closestName } from "../shared/edit-distance.ts";
import { HOOK_EVENT_SUBJECTS, type HookEventName, type MatcherSubject } from "./hook-section.ts";
import {
  BUILT_IN_TOOLS,
  CLAUDE_TOOLS,
  compileMatcher,
  isAbsentClaudeTool,
  isMcpToolName,
  namesOfTool,
  plainMatcherNames,
  specifierOf,
} from "./tool-names.ts";

/** What the check needs of a permission rule (permissions/rules.ts Rule has it). */
export interface CheckedRule {
  tool: string;
  server?: string;
  pattern?: string;
  text: string;
  source: string;
}

/** What the check needs of a hook (hooks/hook-settings.ts CommandHook has it). */
export interface CheckedHook {
  event: HookEventName;
  matcher?: string;
  source: string;
  where: string;
}

/** One entry that can never match (or partly never): the sentence, and whether a guard is missing. */
export interface NameProblem {
  message: string;
  isGuard: boolean;
}

/** The tools a session has, and the MCP servers configured (one that failed to start still has a name). */
export interface KnownTools {
  tools: Tool[];
  servers: string[];
}

/**
 * The problems of every rule and tool-hook matcher. `deny` and `ask` rules and PreToolUse
 * matchers are guards: an ask rule that can never match lets through, unasked, what the user
 * wanted to be asked about.
 */
export function checkNames(
  rules: { allow: CheckedRule[]; deny: CheckedRule[]; ask: CheckedRule[] },
  hooks: CheckedHook[],
  known: KnownTools,
): NameProblem[] {
  return [
    ...rules.deny.flatMap((rule) => ruleProblem(rule, "deny", known)),
    ...rules.ask.flatMap((rule) => ruleProblem(rule, "ask", known)),
    ...rules.allow.flatMap((rule) => ruleProblem(rule, "allow", known)),
    ...hooks.flatMap((hook) => matcherProblem(hook, known)),
  ];
}

function ruleProblem(rule: CheckedRule, field: "allow" | "deny" | "ask", known: KnownTools): NameProblem[] {
  const isGuard = field !== "allow";
  const where = `${rule.source}: the ${field} rule ${rule.text}`;
  if (!namesSomething(rule, known)) {
    const meant = closestName(rule.text.replace(/\(.*$/s, ""), allNames(known), 3);
    const server = rule.server ?? (isMcpToolName(rule.tool) ? rule.tool.split("__")[0] : undefined);
    return [
      {
        message: `${where} names no tool${hint(meant, server, known)}`,
        isGuard: isGuard && (server === undefined || isNearServer(server, known)),
      },
    ];
  }
  if (rule.pattern === undefined || rule.server !== undefined) return [];
  const kind = specifierOf(rule.tool);
  if (kind !== undefined && kind !== "none") return [];
  const tool = known.tools.find((candidate) => candidate.name.toLowerCase() === rule.tool);
  // A library's own file tool is judged by its paths, as the built-in ones are.
  if (kind === undefined && !isMcpToolName(rule.tool) && tool && tool.kind !== "execute") return [];
  return [
    {
      message: `${where} has a pattern harness cannot match: patterns apply to Bash commands, WebFetch domains and file paths; write the tool alone to match every call`,
      isGuard,
    },
  ];
}

function namesSomething(rule: CheckedRule, known: KnownTools): boolean {
  // A built-in tool this session lacks (no subagents, no task tool) is still a name: the rule holds trivially.
  if (specifierOf(rule.tool) !== undefined || isAbsentClaudeTool(rule.tool)) return true;
  if (rule.server !== undefined) return isServer(rule.server, known);
  if (known.tools.some((tool) => tool.name.toLowerCase() === rule.tool)) return true;
  // A server that did not start lists no tools: its tools' names cannot be checked, so they stand.
  return isMcpToolName(rule.tool) && isServer(rule.tool.split("__")[0], known);
}

function isServer(server: string, known: KnownTools): boolean {
  return (
    known.servers.some((name) => name.toLowerCase().replace(/[^a-z0-9_-]/g, "_") === server) ||
    known.tools.some((tool) => tool.name.toLowerCase().startsWith(`${server}__`))
  );
}

/**
 * Whether an MCP server a name gives is a configured one mistyped. A server harness does not
 * configure at all (one from Claude Code's own ~/.claude.json) has no tools here to guard: its
 * rule or matcher is a warning, not a missing guard. A near miss of a configured one is.
 */
function isNearServer(server: string, known: KnownTools): boolean {
  const configured = known.servers.map((name) => name.toLowerCase().replace(/[^a-z0-9_-]/g, "_"));
  return closestName(server, configured, 2) !== undefined;
}

/** ` (did you mean X?)`, or for a server harness does not configure, that it does not. */
function hint(meant: string | undefined, server: string | undefined, known: KnownTools): string {
  if (server !== undefined && !isNearServer(server, known)) return ` (no MCP server "${server}" is configured here)`;
  return meant ? ` (did you mean ${meant}?)` : "";
}

function matcherProblem(hook: CheckedHook, known: KnownTools): NameProblem[] {
  const subject: { matcher: MatcherSubject; guards?: true } = HOOK_EVENT_SUBJECTS[hook.event];
  if (subject.matcher !== "tool") return [];
  const isGuard = subject.guards === true;
  const where = `${hook.source}: ${hook.where} (matcher "${hook.matcher}")`;
  const names = allNames(known);
  const plain = plainMatcherNames(hook.matcher);
  if (plain.length > 0) {
    const ofServer = (name: string) => {
      const mcp = /^(?:mcp__)?([^_].*?)__/.exec(name);
      return mcp !== null && isServer(mcp[1].toLowerCase(), known);
    };
    const unknown = plain.filter((name) => !names.includes(name) && !ofServer(name));
    return unknown.map((name) => {
      const meant = closestName(name, names, 3);
      const server = /^mcp__(.+?)__/.exec(name)?.[1]?.toLowerCase();
      return {
        message: `${where}: ${name} names no tool${hint(meant, server, known)}`,
        isGuard: isGuard && (server === undefined || isNearServer(server, known)),
      };
    });
  }
  const matches = compileMatcher(hook.matcher);
  if (typeof matches !== "function" || matches(names)) return [];
  // A configured server that did not start lists no tools: a matcher may be meant for them.
  if (known.servers.some((server) => !known.tools.some((tool) => tool.name.startsWith(`${server}__`)))) return [];
  const server = /^\^?mcp__([A-Za-z0-9_-]+?)__/.exec(hook.matcher ?? "")?.[1]?.toLowerCase();
  return [
    {
      message: `${where} matches no tool this session has${hint(undefined, server, known)}`,
      isGuard: isGuard && (server === undefined || isNearServer(server, known)),
    },
  ];
}

/** Every name an entry may use: each tool's, ours and Claude's, and Claude's tools harness lacks. */
function allNames(known: KnownTools): string[] {
  const absent = Object.entries(CLAUDE_TOOLS)
    .filter(([, tool]) => tool.harness === undefined)
    .map(([name]) => name);
  const tools = [...BUILT_IN_TOOLS, ...known.tools.map((tool) => tool.name)];
  return [...new Set([...tools.flatMap(namesOfTool), ...absent])];
}

/**
 * Reports the problems: each a warning, except that headless (nobody to tell mid-run) a missing
 * guard is returned as the reason the run must stop.
 */
export function reportNameProblems(
  problems: NameProblem[],
  isHeadless: boolean,
  warn: (message: string) => void,
): string | undefined {
  const guards = problems.filter((problem) => problem.isGuard);
  if (isHeadless && guards.length > 0)
    return `${guards.map((problem) => problem.message).join("; ")}: a guard you rely on would be missing, so nothing ran; fix the settings file`;
  for (const problem of problems) warn(`warning: ${problem.message}${problem.isGuard ? ", so it guards nothing" : ""}`);
  return undefined;
}
