// Notification hooks for permission questions: whoever answers them (a person at the terminal,
// an editor over ACP), the hooks are told first that harness needs the person, as Claude Code's
// `permission_prompt` notification does (https://code.claude.com/docs/en/hooks#notification).
// With nobody to ask nothing is put, so headless runs never notify.
import type { AskApprovalFn, DelegateApprovalFn } from "../permissions/approver.ts";

type Approval = { ask: AskApprovalFn } | { delegate: DelegateApprovalFn } | { nobody: true };

/** The same approval, its questions preceded by `notify`; the question does not wait for the hooks (a notifier is no gate). */
export function notifyingApproval<A extends Approval>(approval: A, notify: (message: string) => Promise<void>): A {
  const tell = (summary: string) => {
    void notify(`harness needs your permission: ${summary}`).catch(() => {});
  };
  if ("ask" in approval) {
    const { ask } = approval;
    const notifyingAsk: AskApprovalFn = (question, signal) => {
      tell(question.summary);
      return ask(question, signal);
    };
    return { ...approval, ask: notifyingAsk };
  }
  if ("delegate" in approval) {
    const { delegate } = approval;
    const notifyingDelegate: DelegateApprovalFn = (request, question, signal) => {
      tell(question.summary);
      return delegate(request, question, signal);
    };
    return { ...approval, delegate: notifyingDelegate };
  }
  return approval;
}
