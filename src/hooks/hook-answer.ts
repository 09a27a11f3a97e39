// What a hook command's exit code and stdout say, read as Claude Code reads them
// (https://code.claude.com/docs/en/hooks#hook-output): exit 2 blocks with stderr as the reason,
// exit 0 may answer with a JSON object on stdout, any other exit is a non-blocking error.
import type { HookPermission } from "../core/run-tools.ts";
import type { HookRun } from "./run-hook-command.ts";

/** Claude Code's JSON answer on stdout (the fields harness acts on). */
export interface HookAnswer {
  continue?: boolean;
  stopReason?: string;
  decision?: string;
  reason?: string;
  updatedInput?: unknown;
  hookSpecificOutput?: {
    permissionDecision?: string;
    permissionDecisionReason?: string;
    updatedInput?: unknown;
    additionalContext?: string;
    /** PermissionRequest's answer. */
    decision?: { behavior?: string; message?: string; updatedInput?: unknown; updatedPermissions?: unknown };
  };
}

/** A JSON object on stdout, or nothing (plain text output is allowed and ignored). */
export function parseAnswer(stdout: string): HookAnswer | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as HookAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** What one UserPromptSubmit hook said: the prompt goes on (with context for the model, maybe), is blocked, or the hook failed. */
export type PromptAnswer = { block: string } | { context?: string } | { failed: true };

/**
 * A UserPromptSubmit hook's answer. Exit 2, `{"decision": "block", "reason"}` or
 * `{"continue": false, "stopReason"}` block the prompt, the reason being for the person (Claude
 * Code shows it to the user only); on exit 0, `hookSpecificOutput.additionalContext`, or plain
 * text on stdout, is added to what the model reads.
 */
export function readPromptAnswer(result: HookRun): PromptAnswer {
  if (result.code === 2) return { block: result.stderr.trim() || "no reason given" };
  if (result.code !== 0) return { failed: true };
  const answer = parseAnswer(result.stdout);
  if (!answer) return result.stdout.trim() ? { context: result.stdout.trim() } : {};
  if (answer.decision === "block") return { block: answer.reason?.trim() || "no reason given" };
  if (answer.continue === false) return { block: answer.stopReason?.trim() || "no reason given" };
  const added = answer.hookSpecificOutput?.additionalContext?.trim();
  return added ? { context: added } : {};
}

/** A PermissionRequest hook's answer to a permission question: allow it once, or deny it with a message for the model. */
export type PermissionAnswer = { behavior: "allow" } | { behavior: "deny"; message?: string };

/**
 * A PermissionRequest hook's answer (https://code.claude.com/docs/en/hooks#permissionrequest-decision-control):
 * exit 2 denies with stderr as the message; on exit 0, `hookSpecificOutput.decision.behavior`
 * `allow` or `deny` (with `message`). Nothing said: undefined, and the question is put.
 * `updatedInput` and `updatedPermissions` are not supported: an allow that carries them is not
 * taken (the person is asked instead), and `unsupported` says so.
 */
export function readPermissionAnswer(
  result: HookRun,
): { answer?: PermissionAnswer; unsupported?: string } | { failed: true } {
  if (result.code === 2)
    return { answer: { behavior: "deny", ...(result.stderr.trim() ? { message: result.stderr.trim() } : {}) } };
  if (result.code !== 0) return { failed: true };
  const decision = parseAnswer(result.stdout)?.hookSpecificOutput?.decision;
  if (decision?.behavior === "deny")
    return { answer: { behavior: "deny", ...(decision.message?.trim() ? { message: decision.message.trim() } : {}) } };
  if (decision?.behavior !== "allow") return {};
  const extra = ["updatedInput", "updatedPermissions"].filter((key) => key in decision);
  if (extra.length > 0)
    return { unsupported: `${extra.join(" and ")} (not supported in harness), so the question is put` };
  return { answer: { behavior: "allow" } };
}

/** A PreToolUse answer's `allow` or `ask` (Claude Code's `permissionDecision`; its older `decision: "approve"` is an allow). */
export function permissionOf(answer: HookAnswer | undefined): HookPermission | undefined {
  const said = answer?.hookSpecificOutput?.permissionDecision ?? (answer?.decision === "approve" ? "allow" : undefined);
  if (said !== "allow" && said !== "ask") return undefined;
  const reason = answer?.hookSpecificOutput?.permissionDecisionReason ?? answer?.reason;
  return { decision: said, ...(reason ? { reason } : {}) };
}

/** Claude Code's three ways for a PreToolUse answer to say no. */
export function blockReason(answer: HookAnswer | undefined): string | undefined {
  if (!answer) return undefined;
  if (answer.hookSpecificOutput?.permissionDecision === "deny")
    return answer.hookSpecificOutput.permissionDecisionReason ?? "a PreToolUse hook denied it";
  if (answer.decision === "block") return answer.reason ?? "a PreToolUse hook blocked it";
  if (answer.continue === false) return answer.stopReason ?? "a PreToolUse hook stopped it";
  return undefined;
}
