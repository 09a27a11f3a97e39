// The session's approval mode as it is now: one value the approver and the sandbox read at
// each call, so a switch (an editor's session/set_mode, the chat's Shift+Tab, the end of plan
// mode) holds from the next call on, for the session's subagents too.
import { PLAN_MODE_REMINDER } from "./plan-mode.ts";
import type { ApprovalMode } from "./policy.ts";

export class ApprovalModeSwitch {
  private readonly listeners = new Set<(mode: ApprovalMode) => void>();
  /**
   * The mode a switch to plan mode left, which carrying the plan out goes back to. *Decision*: a
   * session that started in plan mode had none and goes back to `ask`, the default, since nothing
   * chose a wider one (docs/plan-mode.md).
   */
  private beforePlan: ApprovalMode;

  constructor(private mode: ApprovalMode) {
    this.beforePlan = mode === "plan" ? "ask" : mode;
  }

  get current(): ApprovalMode {
    return this.mode;
  }

  /** The mode a plan is carried out in: the one the session was in before plan mode. */
  get afterPlan(): ApprovalMode {
    return this.beforePlan;
  }

  /** What each model call carries in this mode (AgentOptions.reminder): plan mode's reminder; none in the others. */
  reminder(): string | undefined {
    return this.mode === "plan" ? PLAN_MODE_REMINDER : undefined;
  }

  /** Switches; those listening hear of a change (an editor is told, the status line redrawn). */
  set(mode: ApprovalMode): void {
    if (mode === this.mode) return;
    if (mode === "plan") this.beforePlan = this.mode;
    this.mode = mode;
    for (const listener of this.listeners) listener(mode);
  }

  /** Calls `listener` on each change until the returned function is called. */
  onChange(listener: (mode: ApprovalMode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
