// The hooks around a permission question, whoever answers it (a person at the terminal, an
// editor over ACP): PermissionRequest hooks may answer it first, and if none does, Notification
// hooks are told that harness needs the person (Claude Code's `permission_prompt`), then the
// question is put (https://code.claude.com/docs/en/hooks#permissionrequest, #notification).
// With nobody to ask no question is put, so headless runs fire neither.

import type { ApproveFn } from "../core/run-tools.ts";
import type { CommandHooks, PermissionAnswer } from "../hooks/command-hooks.ts";
import type { ApprovalModeSwitch } from "../permissions/approval-mode.ts";
import {
  type ApprovalAnswer,
  type ApproverOptions,
  type AskApprovalFn,
  createApprover,
  type DelegateApprovalFn,
} from "../permissions/approver.ts";
import type { PermissionPolicy } from "../permissions/policy.ts";

type Approval = { ask: AskApprovalFn } | { delegate: DelegateApprovalFn } | { nobody: true };
/**
 * Who answers what the rules leave open: a person at the terminal (`ask`), a front end with its
 * own dialogue (`delegate`, the editor), or nobody (refused).
 */
export type SessionApproval =
  | { ask: AskApprovalFn }
  | { delegate: DelegateApprovalFn }
  | { nobody: true; onRefused?: ApproverOptions["onRefused"] };

/** The policy's approver for a workspace (`cwd`), its questions first put to the hooks. */
export function policyApprover(
  approval: SessionApproval,
  hooks: AnsweringHooks,
  warn: (message: string) => void,
  where: { policy: PermissionPolicy; mode: ApprovalModeSwitch; cwd: string },
): ApproveFn {
  const hooked = hookedApproval(approval, hooks, warn);
  return createApprover({
    ...where,
    ...("delegate" in hooked ? { delegate: hooked.delegate } : {}),
    ...("nobody" in hooked ? { onRefused: hooked.onRefused } : {}),
  });
}
type AnsweringHooks = Pick<CommandHooks, "permissionRequest" | "notification">;

/**
 * The same approval with its questions first put to the hooks. A terminal's `ask` becomes a
 * `delegate` (the approver treats both alike) so the hooks see the call, not only its summary.
 */
function hookedApproval<A extends Approval>(
  approval: A,
  hooks: AnsweringHooks,
  warn: (message: string) => void,
): A | { delegate: DelegateApprovalFn } {
  if ("nobody" in approval) return approval;
  const answer: DelegateApprovalFn =
    "ask" in approval ? (_request, question, signal) => approval.ask(question, signal) : approval.delegate;
  return {
    delegate: async (request, question, signal) => {
      const said = await hooks.permissionRequest(request.call.name, request.input, signal);
      const decided = said && decidedBy(said, question, warn);
      if (decided) return decided;
      if (signal.aborted) return undefined;
      // The question does not wait for the notifier (a desktop notification is no gate).
      void hooks
        .notification(`harness needs your permission: ${question.summary}`, "permission_prompt")
        .catch(() => {});
      return answer(request, question, signal);
    },
  };
}

/**
 * What a PermissionRequest hook's answer decides. *Decision*, as for PreToolUse's
 * permissionDecision: a deny always holds (it only narrows), an allow only answers an ordinary
 * question, never one with a reason (an ask rule, a protected path, a read outside the
 * workspace), which is then put to the person as usual. An allow counts once, like "yes".
 */
function decidedBy(
  said: PermissionAnswer,
  question: Parameters<DelegateApprovalFn>[1],
  warn: (message: string) => void,
): ApprovalAnswer | undefined {
  if (said.behavior === "deny") return { type: "no", reason: said.message ?? "a PermissionRequest hook denied it" };
  if (question.explicit || question.why) {
    warn(
      `a PermissionRequest hook allowed "${question.summary}", which only you can allow here (${question.why ?? "a protected path"}): asking you`,
    );
    return undefined;
  }
  return { type: "yes" };
}
