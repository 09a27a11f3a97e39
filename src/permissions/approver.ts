// Turns the policy into the loop's ApproveFn: allowed calls run, denied ones go back to the
// model with the reason, and the rest are put to the person (or refused when nobody can answer).
import { assertNever } from "../core/messages.ts";
import type { ApprovalDecision, ApprovalRequest, ApproveFn, HookPermission } from "../core/run-tools.ts";
import type { OpenedFile } from "../core/tool.ts";
import type { ApprovalModeSwitch } from "./approval-mode.ts";
import { otherNameJudge } from "./hard-links.ts";
import { pathsOfCall, realTarget } from "./path-policy.ts";
import { type Decision, decide, decideEffects, type PermissionPolicy } from "./policy.ts";
import type { Rule } from "./rules.ts";

/** A call put to the person. */
export interface ApprovalQuestion {
  /** The tool's one-line description of the call (`bash> git status`). */
  summary: string;
  /** Why it asks although the mode would not (`/etc/hosts is outside the workspace`). */
  why?: string;
  /** The change an edit would make, as a unified diff. */
  diff?: string;
  /** What "always" would allow for the rest of the session (`bash(git status)`); empty when not offered. */
  remember: string[];
  /** Only whoever answers can allow it, and only this once (a protected path, a deny rule that cannot be checked). */
  explicit?: true;
  /** What "always for this project" would save (`pypi.org:443`); absent when not offered (only the network's questions offer it). */
  project?: string;
}

/** The person's answer; `undefined` from the asker means interrupted or input closed. */
export type ApprovalAnswer =
  | { type: "yes" }
  | { type: "no"; reason?: string }
  | { type: "always" }
  /** Always, saved for this project (offered only where the question has `project`). */
  | { type: "project" };

/** Puts one question to a person. */
export type AskApprovalFn = (question: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer | undefined>;

/**
 * A front end with its own dialogue (an editor over ACP): it gets the call and the same question
 * a person would, and its answer counts as theirs, so "always" adds only the rules `remember` lists.
 */
export type DelegateApprovalFn = (
  request: ApprovalRequest,
  question: ApprovalQuestion,
  signal: AbortSignal,
) => Promise<ApprovalAnswer | undefined>;

export interface ApproverOptions {
  policy: PermissionPolicy;
  /** The approval mode now, when it can switch while the session lives; else `policy.mode`. */
  mode?: ApprovalModeSwitch;
  /** The working directory tools resolve relative paths against (the workspace, before symlinks are resolved). */
  cwd: string;
  /** Absent when nobody can be asked (no TTY): calls that need approval are refused. */
  ask?: AskApprovalFn;
  /** Instead of `ask`: a front end with its own approval dialogue (an editor over ACP) answers what the rules leave open. */
  delegate?: DelegateApprovalFn;
  /** With no `ask` or `delegate`: told of each call refused for want of someone to approve it, and what would have allowed it. */
  onRefused?: (summary: string, wouldAllow: string) => void;
}

/** The policy as an ApproveFn; "always" answers add session rules, kept as long as the approver. */
export function createApprover(options: ApproverOptions): ApproveFn {
  const sessionRules: Rule[] = [];
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    const policy = options.mode ? { ...options.policy, mode: options.mode.current } : options.policy;
    const decision = weighHook(
      await decide(request.tool, request.input, options.cwd, policy, sessionRules),
      request.hookPermission,
    );
    const allowed = (approvedByPerson: string[]) =>
      allowWithCheck(request, options.cwd, policy, sessionRules, approvedByPerson);
    switch (decision.type) {
      case "allow":
        return allowed([]);
      case "deny":
        return { allow: false, reason: decision.reason, ...(decision.byRule ? { byRule: true } : {}) };
      case "ask":
        break;
      default:
        return assertNever(decision);
    }
    if (!options.ask && !options.delegate) {
      options.onRefused?.(request.summary, wouldAllow(request, decision));
      if (decision.explicit)
        return {
          allow: false,
          reason: `no one was there to approve it (headless run; --yes and allow rules do not cover this): ${decision.why}. Do not work around it; tell the user what you wanted to change.`,
        };
      return { allow: false, reason: "no one was there to approve it (headless run without --yes or an allow rule)" };
    }
    // The diff comes from the tool's own preview (an edit's change), for a person and an editor alike.
    const diff = await request.tool.preview?.(request.input, options.cwd).catch(() => undefined);
    const question: ApprovalQuestion = {
      summary: request.summary,
      why: decision.why,
      diff,
      remember: decision.remember.map((rule) => rule.text),
      ...(decision.explicit ? { explicit: true } : {}),
    };
    const answer = options.delegate
      ? await options.delegate(request, question, signal)
      : await options.ask?.(question, signal);
    // Esc or Ctrl-C at the question interrupts the turn: no reason, the call is reported as interrupted (run-tools).
    if (answer === undefined || signal.aborted) return { allow: false };
    // An "always" adds what `remember` lists and nothing else: an explicit decision lists nothing,
    // so whoever answers (a person, an editor that offers its own buttons) allows it this once.
    switch (answer.type) {
      case "yes":
        return allowed(await approvedTargets(request, options.cwd));
      case "always":
      case "project": // a tool's question never offers "project": taken as the "always" it offers
        sessionRules.push(...decision.remember);
        return allowed(await approvedTargets(request, options.cwd));
      case "no":
        return answer.reason ? { allow: false, reason: answer.reason } : { allow: false };
      default:
        return assertNever(answer);
    }
  };
}

/**
 * A hook's say (Claude Code's PreToolUse `permissionDecision`) over the policy's decision.
 * *Decision*, security first: `allow` is no more than an allow rule for this one call, so it
 * skips only the ordinary question (the mode's, no reason given) and never a deny rule, an ask
 * rule, a protected path or a question with a reason (outside the workspace); `ask` asks even
 * what the rules and `--yes` allow, only once and never "always" (the hook asks every time;
 * headless: refused). `deny` never gets here: the hook refused the call itself.
 */
function weighHook(decision: Decision, hook: HookPermission | undefined): Decision {
  if (!hook || decision.type === "deny") return decision;
  if (hook.decision === "allow")
    return decision.type === "ask" && !decision.explicit && !decision.why ? { type: "allow" } : decision;
  const why = `${hook.by ?? "a PreToolUse hook"} asks${hook.reason ? `: ${hook.reason}` : ""}`;
  return {
    type: "ask",
    why: decision.type === "ask" && decision.why ? `${decision.why}; ${why}` : why,
    remember: [],
    explicit: true,
  };
}

/** What would have let a refused headless call run: the flag, and the allow rule that covers it. */
function wouldAllow(request: ApprovalRequest, decision: Extract<Decision, { type: "ask" }>): string {
  if (decision.explicit) return `only a person can allow it (${decision.why}): run it in a chat`;
  const flag = request.tool.kind === "edit" && !decision.why ? "--approve edits or --yes" : "--yes";
  const rules = decision.remember.map((rule) => rule.text);
  return `${flag} would allow it${rules.length > 0 ? `, as would the allow rule ${rules.join(", ")} in settings.json` : ""}${decision.why ? ` (it asks because ${decision.why})` : ""}`;
}

/** Where the files a call names really are, as judged when the person approved it. */
export async function approvedTargets(request: ApprovalRequest, cwd: string): Promise<string[]> {
  return Promise.all(pathsOfCall(request.tool, request.input, cwd).map((file) => realTarget(file.path)));
}

/**
 * An approval, with the check at the moment of use for a file tool (commands have none: the
 * sandbox bounds them): the policy decides again about the file where it really is then.
 * Allowed: go on. Denied: the reason. A question: only if it is the very file the person
 * approved, since nobody approved where the path leads now.
 */
export function allowWithCheck(
  request: ApprovalRequest,
  cwd: string,
  policy: PermissionPolicy,
  sessionRules: Rule[],
  approvedByPerson: string[],
): ApprovalDecision {
  if (pathsOfCall(request.tool, request.input, cwd).length === 0) return { allow: true };
  const otherName = otherNameJudge(request.tool, policy);
  const checkAtUse = async (
    real: string,
    access: "read" | "write",
    opened?: OpenedFile,
  ): Promise<string | undefined> => {
    if (opened) return otherName(real, opened);
    const effects = access === "read" ? { reads: [real] } : { writes: [real] };
    // The hook's say counts here as at the approval: its allow of an ordinary question holds for the real file.
    const now = weighHook(await decideEffects(request.tool, effects, policy, sessionRules), request.hookPermission);
    switch (now.type) {
      case "allow":
        return undefined;
      case "deny":
        return `not allowed: ${now.reason}`;
      case "ask":
        if (approvedByPerson.includes(real)) return undefined;
        return `the path now leads to ${real}, which was not approved${now.why ? ` (${now.why})` : ""}: it changed after the check. Nothing was done.`;
      default:
        return assertNever(now);
    }
  };
  return { allow: true, checkAtUse };
}
