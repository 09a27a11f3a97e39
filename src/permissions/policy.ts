// The permission policy as data, and the one function that applies it to a tool call:
// allow, deny (with the reason the model gets) or ask the person.

import { assertNever } from "../core/messages.ts";
import type { Tool, ToolEffects } from "../core/tool.ts";
import { isInside } from "../shared/is-inside.ts";
import { lineViews, type View } from "./command-views.ts";
import { effectsOfCall, realTarget, touchedPaths } from "./path-policy.ts";
import { planModeCall, planModeCommand } from "./plan-mode.ts";
import { whyProtected } from "./protected-paths.ts";
import { rememberedPrefixes } from "./remembered-prefixes.ts";
import { allowCoverage, commandMatches, commandMayMatch, pathMatches, type Rule, ruleNamesTool } from "./rules.ts";
import { SYSTEM_PATHS } from "./secret-paths.ts";
import { type SimpleCommand, splitCommand, UNKNOWN } from "./shell-split.ts";

/**
 * `ask`: reads run, edits and commands ask. `edits`: edits inside the workspace run too. `plan`:
 * nothing changes (plan-mode.ts). `all` (`--yes`): everything runs that no deny rule, ask rule or boundary stops.
 */
export const APPROVAL_MODES = ["ask", "edits", "plan", "all"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * How commands are confined. `on`: the sandbox runs them. `off`: the user turned it off.
 * `unavailable`: wanted but cannot run here, so every command asks (allow rules do not apply).
 */
export type SandboxState = "on" | "off" | "unavailable";

/** Everything a decision depends on, resolved once per run (paths are real paths; `mode` may switch). */
export interface PermissionPolicy {
  mode: ApprovalMode;
  allow: Rule[];
  deny: Rule[];
  /**
   * Claude Code's `permissions.ask`: a call one covers is put to the person, this once, after
   * the deny rules and before the allow rules and the mode (deny > ask > allow), `--yes`
   * included, as Claude Code keeps explicit ask rules in its bypassPermissions mode
   * (https://code.claude.com/docs/en/permission-modes). Headless, such a call is refused.
   */
  ask: Rule[];
  sandbox: SandboxState;
  workspace: string;
  /** Other folders file tools may use freely (the temp folder). */
  freeRoots: string[];
  /** Where credentials live (secret-paths.ts); file tools stay out while the sandbox is on. */
  secretPaths: string[];
  /** Files that run code at the user's next login, shell or git command (home-code-paths.ts): edits are refused while the sandbox is on. */
  homeCodePaths?: string[];
  /** Globs read tools may use freely even inside a secret path: the sessions' spilled tool output, which the model is told to page through. */
  readableGlobs: string[];
  home: string;
  /** Plan mode's one writable file (its real path), where the plan is kept beside the session. */
  planFile?: string;
}

/**
 * What to do with a call. `remember` is what an "always" answer would add for this session.
 * `explicit`: only the person can allow it, this once: no mode, `--yes` or allow rule does.
 */
export type Decision =
  | { type: "allow" }
  | { type: "deny"; reason: string; byRule?: true } // byRule: a deny rule someone wrote, not harness's own paths
  | { type: "ask"; why?: string; remember: Rule[]; explicit?: true };

const SESSION = "this session";

/**
 * Applies the policy, plus rules added this session, to one call, by what its tool declares it
 * touches (Tool.effects), never by argument or tool names. Deny wins over everything, then ask
 * rules, then allow rules and the mode.
 */
export async function decide(
  tool: Tool,
  input: unknown,
  cwd: string,
  policy: PermissionPolicy,
  sessionRules: Rule[],
): Promise<Decision> {
  return decideEffects(tool, effectsOfCall(tool, input, cwd), policy, sessionRules);
}

/** `decide` for effects already known, paths absolute (the check at the moment of use judges one real path so). */
export async function decideEffects(
  tool: Tool,
  effects: ToolEffects | undefined,
  policy: PermissionPolicy,
  sessionRules: Rule[],
): Promise<Decision> {
  const allow = [...policy.allow, ...sessionRules];
  const toolDeny = policy.deny.find((rule) => ruleNamesTool(rule, tool) && rule.pattern === undefined);
  if (toolDeny) return deny(toolDeny, `${tool.name} calls`);
  if (effects?.command !== undefined) return decideCommand(tool, effects.command, policy, allow);
  if (effects?.fetches !== undefined) return decideFetch(tool, effects.fetches, policy, allow);
  const planned = policy.mode === "plan" ? await planModeCall(tool, effects, policy.planFile) : undefined;
  if (planned) return planned;
  // Fail closed: a file tool that does not say which files it uses cannot be checked, so only a
  // person may allow a call, this once (an execute tool is asked about by its kind below).
  if (!effects && tool.kind !== "execute")
    return {
      type: "ask",
      why: `${tool.name} does not declare which files it reads or writes, so its call cannot be checked`,
      remember: [],
      explicit: true,
    };

  let mustAsk: string | undefined;
  let protectedWhy: string | undefined;
  // A tool-wide ask rule, or the first path one a target matches; it asks once no deny rule has spoken.
  let askRule = policy.ask.find((rule) => ruleNamesTool(rule, tool) && rule.pattern === undefined);
  const remember: Rule[] = [];
  const touched = touchedPaths(effects);
  // A call that names no file is covered by no path rule (an MCP tool that runs on its server).
  let isCoveredByPathRule = touched.length > 0;
  // As written too, not only where it really is: `.harness/settings.json` through a symlinked
  // `.harness` is still the file harness reads its settings from.
  protectedWhy = touched
    .filter((file) => file.access === "write")
    .map((file) => whyProtected(file.path))
    .find(Boolean);
  const targets = await Promise.all(touched.map(async (file) => ({ ...file, path: await realTarget(file.path) })));
  for (const { path: target, access } of targets) {
    const where = { workspace: policy.workspace, home: policy.home };
    const pathDeny = policy.deny.find(
      (rule) => ruleNamesTool(rule, tool) && rule.pattern !== undefined && pathMatches(rule.pattern, target, where),
    );
    if (pathDeny) return deny(pathDeny, target);
    askRule ??= policy.ask.find(
      (rule) => ruleNamesTool(rule, tool) && rule.pattern !== undefined && pathMatches(rule.pattern, target, where),
    );
    const pathAllow = allow.find(
      (rule) => ruleNamesTool(rule, tool) && rule.pattern !== undefined && pathMatches(rule.pattern, target, where),
    );
    if (!pathAllow) isCoveredByPathRule = false;
    const mayLeave =
      pathAllow?.trusted === true ||
      (access === "read" && policy.readableGlobs.some((glob) => pathMatches(glob, target, where)));
    const system = SYSTEM_PATHS.find((folder) => isInside(target, folder));
    if (system)
      return {
        type: "deny",
        reason: `${target} is under ${system}: file tools read nothing there (process environments and kernel state). Use bash, whose environment is scrubbed, if you need it.`,
      };
    const secret = policy.secretPaths.find((secretPath) => isInside(target, secretPath));
    if (secret && !mayLeave && policy.sandbox !== "off") {
      return {
        type: "deny",
        reason: `${target} is in ${secret}, where credentials live; file tools stay out of it while the sandbox is on.`,
      };
    }
    const homeCode =
      access === "write" &&
      policy.sandbox !== "off" &&
      (policy.homeCodePaths ?? []).find((file) => isInside(target, file));
    if (homeCode)
      return {
        type: "deny",
        reason: `${target} runs code when you next log in, open a shell or start the program that reads it (${homeCode}); file tools do not change it while the sandbox is on. Tell the user what you wanted to change.`,
      };
    protectedWhy ??= access === "write" ? whyProtected(target) : undefined;
    if (mayLeave || [policy.workspace, ...policy.freeRoots].some((root) => isInside(target, root))) continue;
    if (access === "write" && policy.sandbox !== "off") {
      return {
        type: "deny",
        reason: `${target} is outside the workspace (${policy.workspace}); edits stay inside it. Work inside the workspace or ask the user to allow that path.`,
      };
    }
    mustAsk = `${target} is outside the workspace`;
    remember.push(ruleFor(tool.name, `${target}`));
  }
  if (protectedWhy) return { type: "ask", why: protectedWhy, remember: [], explicit: true };
  if (askRule) return askedByRule(askRule, askRule.pattern === undefined ? `${tool.name} calls` : askRule.pattern);
  if (mustAsk) return policy.mode === "all" ? { type: "allow" } : { type: "ask", why: mustAsk, remember };

  const isAllowedByRule =
    isCoveredByPathRule || allow.some((rule) => ruleNamesTool(rule, tool) && rule.pattern === undefined);
  if (isAllowedByRule || isAllowedByMode(tool, policy.mode)) return { type: "allow" };
  return { type: "ask", remember: [ruleFor(tool.name)] };
}

function decideCommand(tool: Tool, command: string, policy: PermissionPolicy, allow: Rule[]): Decision {
  const split = splitCommand(command);
  const views = lineViews(split);
  const covers = (rule: Rule, words: string[]) =>
    ruleNamesTool(rule, tool) && (rule.pattern === undefined || commandMatches(rule.pattern, words));
  const denied = ruleInViews(views, policy.deny, covers);
  if (denied) return deny(denied.rule, `\`${shown(denied.view)}\``);
  // One fail-closed judgement for deny, ask and allow rules: what a command will run but the line does not
  // say (a computed word, code read from input, git's configuration from the environment) may be what a
  // rule names. Then a deny rule refuses it, an ask rule asks, and no allow rule covers it (below), in every mode.
  const hiddenDeny = hiddenRule(tool, views, policy.deny);
  if (hiddenDeny)
    return {
      type: "deny",
      byRule: true,
      reason: `the rule ${hiddenDeny.rule.text}${fromSource(hiddenDeny.rule)} forbids what this command may run: harness cannot tell what it runs (${hiddenDeny.why}); write the command out plainly.`,
    };
  // Ask rules look at the same views, after every deny rule (deny > ask > allow).
  const asked = ruleInViews(views, policy.ask, covers);
  if (asked) return askedByRule(asked.rule, `\`${shown(asked.view)}\``);
  const hiddenAsk = hiddenRule(tool, views, policy.ask);
  if (hiddenAsk)
    return askedByRule(
      hiddenAsk.rule,
      `what this command may run: harness cannot tell what it runs (${hiddenAsk.why}); write the command out plainly`,
    );
  if (policy.mode === "all") return { type: "allow" };
  if (policy.mode === "plan") return planModeCommand(policy.sandbox);
  if (policy.sandbox === "unavailable") return { type: "ask", why: "no sandbox: every command asks", remember: [] };
  if (!split.parsed) return { type: "ask", why: "the command could not be split into parts to check", remember: [] };
  // A plain `bash` allow rule covers every command (a plain `bash` deny rule was handled before).
  if (allow.some((rule) => ruleNamesTool(rule, tool) && rule.pattern === undefined)) return { type: "allow" };
  // Fail closed: what the splitter or the views cannot follow is asked about, whatever the rules say.
  if (split.unsure) return { type: "ask", why: `it uses ${split.unsure}, which rules cannot check`, remember: [] };
  // git's configuration from the environment or a file may make any git command run anything:
  // only a rule naming git alone (`bash(git)`) covers that.
  const gitConfig = views.find((view) => view.isGitConfig && !allow.some((rule) => covers(rule, view.words)));
  if (gitConfig) return { type: "ask", why: `${gitConfig.why}, which rules cannot check`, remember: [] };
  const allowingRules = (words: string[]) => allow.filter((rule) => covers(rule, words));
  const unmatched: SimpleCommand[] = [];
  for (const part of split.commands) {
    const coverage = allowCoverage(part, allowingRules);
    if (!coverage.covered && coverage.why)
      return { type: "ask", why: `${coverage.why}, which rules cannot check`, remember: [] };
    // A prefix rule does not cover a part that redirects output into a file (`git log > notes.md`).
    if (!coverage.covered || part.writesFile) unmatched.push(part);
  }
  if (unmatched.length === 0) return { type: "allow" };
  const hasWrite = unmatched.some((part) => part.writesFile);
  if (hasWrite) return { type: "ask", why: "it redirects output into a file", remember: [] };
  return {
    type: "ask",
    why: undefined,
    remember: unique(unmatched.flatMap(rememberedPrefixes).map((prefix) => ruleFor(tool.name, prefix))),
  };
}

/**
 * Network approval for web_fetch, by host: `web_fetch(example.com)` covers that host,
 * `web_fetch(*.example.com)` its subdomains too. "Always" remembers the host. `--yes` allows.
 */
function decideFetch(tool: Tool, url: string, policy: PermissionPolicy, allow: Rule[]): Decision {
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase() : "";
  const covers = (rule: Rule) =>
    ruleNamesTool(rule, tool) && (rule.pattern === undefined || domainMatches(rule.pattern, host));
  const rule = policy.deny.find(covers);
  if (rule) return deny(rule, `fetching from ${host}`);
  const askRule = policy.ask.find(covers);
  if (askRule) return askedByRule(askRule, `fetching from ${host || url}`);
  if (policy.mode === "all" || policy.mode === "plan" || allow.some(covers)) return { type: "allow" };
  return {
    type: "ask",
    why: `it reaches the network (${host || url})`,
    remember: host ? [ruleFor(tool.name, host)] : [],
  };
}

function domainMatches(pattern: string, host: string): boolean {
  const wanted = pattern.toLowerCase();
  return wanted.startsWith("*.") ? host === wanted.slice(2) || host.endsWith(wanted.slice(1)) : host === wanted;
}

function isAllowedByMode(tool: Tool, mode: ApprovalMode): boolean {
  switch (tool.kind) {
    case "read":
      return true;
    case "edit":
      return mode === "edits" || mode === "all";
    case "execute":
      return mode === "all";
    default:
      return assertNever(tool.kind);
  }
}

function ruleFor(tool: string, pattern?: string): Rule {
  return { tool, pattern, text: pattern === undefined ? tool : `${tool}(${pattern})`, source: SESSION, trusted: true };
}

function unique(rules: Rule[]): Rule[] {
  return rules.filter((rule, index) => rules.findIndex((other) => other.text === rule.text) === index);
}

/** The first of `rules` that covers any view of the line (command-views.ts), and that view. */
function ruleInViews(
  views: View[],
  rules: Rule[],
  covers: (rule: Rule, words: string[]) => boolean,
): { rule: Rule; view: string[] } | undefined {
  for (const view of views) {
    const rule = rules.find((candidate) => covers(candidate, view.words));
    if (rule) return { rule, view: view.words };
  }
  return undefined;
}

/**
 * The first command rule (deny or ask) with a pattern that could cover a view the line cannot
 * spell out (a word computed when it runs, code a shell reads from its input, git's
 * configuration from the environment, a line that cannot be split), and why it cannot.
 */
function hiddenRule(tool: Tool, views: View[], rules: Rule[]): { rule: Rule; why: string } | undefined {
  const patterned = rules.filter((rule) => ruleNamesTool(rule, tool) && rule.pattern !== undefined);
  if (patterned.length === 0) return undefined;
  for (const view of views) {
    if (view.why === undefined) continue;
    const rule = patterned.find((candidate) => commandMayMatch(candidate.pattern as string, view.words));
    if (rule) return { rule, why: view.why };
  }
  return undefined;
}

/** A view as the person reads it: an open word's computed rest as `…`. */
function shown(words: string[]): string {
  return words.join(" ").replaceAll(UNKNOWN, "…");
}

function fromSource(rule: Rule): string {
  return rule.source === SESSION ? "" : ` in ${rule.source}`;
}

/** The question an ask rule puts: once only, since "always" would silence a rule the user wrote to be asked. */
function askedByRule(rule: Rule, what: string): Decision {
  return {
    type: "ask",
    why: `the ask rule ${rule.text} in ${rule.source} asks before ${what}`,
    remember: [],
    explicit: true,
  };
}

function deny(rule: Rule, what: string): Decision {
  return { type: "deny", reason: `the rule ${rule.text}${fromSource(rule)} forbids ${what}.`, byRule: true };
}
