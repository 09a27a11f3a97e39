import type { ApprovalDecision, ApprovalRequest, ApproveFn } from "../core/run-tools.ts";
import type { Palette } from "./colors.ts";

/** Asks the person one question and returns their line (undefined when input has closed). */
export type AskFn = (question: string, signal: AbortSignal) => Promise<string | undefined>;

export interface ApproverOptions {
  /** `--yes`: every call runs without asking. */
  approveAll: boolean;
  /** Absent when nobody can be asked (no TTY): calls that need approval are refused. */
  ask?: AskFn;
  colors: Palette;
}

/**
 * The terminal's approval policy: read-only tools run freely; edits and commands ask
 * (yes / no with an optional reason / always for this session) unless `--yes`.
 */
export function createTerminalApprover(options: ApproverOptions): ApproveFn {
  const alwaysAllowed = new Set<string>();
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    if (options.approveAll || request.tool.kind === "read" || alwaysAllowed.has(request.tool.name)) return { allow: true };
    if (!options.ask) return { allow: false, reason: "no one was there to approve it (headless run without --yes)" };
    const question = `${options.colors.yellow("allow?")} ${request.summary}\n  [y]es  [n]o (or type a reason)  [a]lways for ${request.tool.name} this session > `;
    const answer = (await options.ask(question, signal))?.trim();
    if (answer === undefined || signal.aborted) return { allow: false, reason: "the user interrupted" };
    const word = answer.toLowerCase();
    if (word === "y" || word === "yes") return { allow: true };
    if (word === "a" || word === "always") {
      alwaysAllowed.add(request.tool.name);
      return { allow: true };
    }
    if (word === "n" || word === "no") return { allow: false };
    return { allow: false, reason: answer };
  };
}
