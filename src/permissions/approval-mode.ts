// The session's approval mode as it is now: one value the approver and the sandbox read at
// each call, so a switch (an editor's session/set_mode, the chat's Shift+Tab, the end of plan
// mode) holds from the next call on, for the session's subagents too.
import type { ApprovalMode } from "./policy.ts";

export class ApprovalModeSwitch {
  private readonly listeners = new Set<(mode: ApprovalMode) => void>();

  constructor(private mode: ApprovalMode) {}

  get current(): ApprovalMode {
    return this.mode;
  }

  /** Switches; those listening hear of a change (an editor is told, the status line redrawn). */
  set(mode: ApprovalMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    for (const listener of this.listeners) listener(mode);
  }

  /** Calls `listener` on each change until the returned function is called. */
  onChange(listener: (mode: ApprovalMode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
