// The chat's approval modes (docs/plan-mode.md): Shift-Tab cycles ask → edits → plan, `/mode`
// names one, the header and the status line show the mode, and a plan proposed in plan mode is
// carried out with the mode the session had before it (ui/plan-choice.ts asks how).
import { APPROVAL_MODES, type ApprovalMode } from "../permissions/policy.ts";
import type { ChatModeControls } from "../ui/plan-choice.ts";
import type { Session } from "../wiring/create-session.ts";

/** What each mode means, in the line a switch prints. */
const MEANINGS: Record<ApprovalMode, string> = {
  ask: "reads run; edits and commands ask",
  edits: "edits in the workspace run too; commands ask",
  plan: "nothing changes: the model studies the code and proposes a plan",
  all: "everything runs that no rule stops (--yes)",
};

/**
 * The modes Shift-Tab goes through. *Decision*: `all` only in a session that started in it (as
 * Claude Code offers bypassPermissions in its cycle only when started so): a key press next to
 * Tab should never widen a session past what its command line chose.
 */
const CYCLE: readonly ApprovalMode[] = ["ask", "edits", "plan"];

export class ChatModes implements ChatModeControls {
  private readonly cycle: readonly ApprovalMode[];

  constructor(private readonly session: Session) {
    this.cycle = session.approvalMode.current === "all" ? [...CYCLE, "all"] : CYCLE;
  }

  current(): string {
    return this.session.approvalMode.current;
  }

  statusPart(): string | undefined {
    const mode = this.session.approvalMode.current;
    return mode === "ask" ? undefined : `${mode} mode`;
  }

  cycleMode(): string {
    const now = this.session.approvalMode.current;
    const next = this.cycle[(this.cycle.indexOf(now) + 1) % this.cycle.length];
    return this.switchTo(next);
  }

  setMode(text: string): string {
    const mode = APPROVAL_MODES.find((name) => name === text.trim());
    if (!mode || (mode === "all" && !this.cycle.includes("all")))
      throw new Error(
        `/mode takes ${this.cycle.join(", ")}${this.cycle.includes("all") ? "" : " (all only with --yes)"}`,
      );
    return this.switchTo(mode);
  }

  describe(): string {
    const mode = this.session.approvalMode.current;
    return `${mode} mode: ${MEANINGS[mode]} (Shift-Tab or /mode ${this.cycle.join("|")} switches)`;
  }

  modeAfterPlan(): string {
    return this.session.approvalMode.afterPlan;
  }

  carryOut(): string {
    return this.switchTo(this.session.approvalMode.afterPlan);
  }

  carryOutFresh(): string {
    this.session.startNew();
    return `new session ${this.session.id}; ${this.carryOut()}`;
  }

  private switchTo(mode: ApprovalMode): string {
    this.session.approvalMode.set(mode);
    return this.describe();
  }
}
