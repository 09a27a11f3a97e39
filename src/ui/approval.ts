import type { ApprovalAnswer, ApprovalQuestion, AskApprovalFn } from "../permissions/approver.ts";
import type { Palette } from "./colors.ts";
import { renderDiff } from "./diff-render.ts";
import { foldForQuestion } from "./fold-for-question.ts";
import type { ShownDiffs } from "./shown-diffs.ts";
import { visibleForTerminal } from "./terminal-safe.ts";
import { visibleWidth } from "./text-width.ts";

/** Asks the person one question and returns their line (undefined when input has closed). */
export type AskFn = (question: string, signal: AbortSignal) => Promise<string | undefined>;

export interface TerminalAskOptions {
  ask: AskFn;
  colors: Palette;
  /** Terminal width, for fitting diff lines. */
  columns: number;
  /** Where a diff shown here is noted, so the result after the write does not draw it again. */
  shownDiffs?: ShownDiffs;
}

/**
 * Approval questions on the terminal: the call, why it asks, the diff of an edit, then
 * yes / no (or type a reason, which the model gets) / always (the rule it would add is shown).
 * An empty answer is a no, so a stray Enter never runs anything (the chat's line editor does not
 * even send one: an Enter there queues what was typed before the question appeared).
 */
export function createTerminalAsk(options: TerminalAskOptions): AskApprovalFn {
  const { colors } = options;
  return async (untrusted: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer | undefined> => {
    const question = visibleForTerminal(untrusted);
    const lines = [`${colors.yellow("allow?")} ${foldForQuestion(question.summary, options.columns)}`];
    if (question.why) lines.push(colors.dim(`  (${question.why})`));
    if (question.diff && untrusted.diff) {
      lines.push(renderDiff(question.diff, colors, options.columns));
      options.shownDiffs?.remember(untrusted.diff);
    }
    lines.push(...answerLines(question.remember, options.columns));
    const answer = (await options.ask(lines.join("\n"), signal))?.trim();
    if (answer === undefined) return undefined;
    const word = answer.toLowerCase();
    if (word === "y" || word === "yes") return { type: "yes" };
    // "always" where nothing can be remembered (the command could not be checked part by part) allows this once.
    if (word === "a" || word === "always") return question.remember.length > 0 ? { type: "always" } : { type: "yes" };
    if (word === "" || word === "n" || word === "no") return { type: "no" };
    return { type: "no", reason: answer };
  };
}

/**
 * The answers on one line; when the rule `always` would add makes it wider than the terminal, that
 * rule goes on a line of its own above, so the line the cursor waits on never wraps.
 */
function answerLines(remember: string[], columns: number): string[] {
  const answers = "  [y]es  [n]o (or type a reason)";
  if (remember.length === 0) return [`${answers} > `];
  const always = `  [a]lways allow ${remember.join(", ")} this session`;
  if (visibleWidth(`${answers}${always} > `) <= columns) return [`${answers}${always} > `];
  return [always, `${answers}  [a]lways > `];
}
