import type { ApprovalAnswer, ApprovalQuestion, AskApprovalFn } from "../permissions/approver.ts";
import { readApprovalAnswer } from "./approval-answer.ts";
import type { Palette } from "./colors.ts";
import { renderDiff } from "./diff-render.ts";
import { foldForQuestion } from "./fold-for-question.ts";
import type { ShownDiffs } from "./shown-diffs.ts";
import { forTerminal } from "./terminal-safe.ts";
import { fitWidth, visibleWidth } from "./text-width.ts";

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
 * yes / no / refuse saying why (the model gets the reason) / always (the rule it would add is shown);
 * approval-answer.ts reads the answer.
 * An empty answer is a no, so a stray Enter never runs anything (the chat's line editor does not
 * even send one: an Enter there queues what was typed before the question appeared).
 */
export function createTerminalAsk(options: TerminalAskOptions): AskApprovalFn {
  const { colors } = options;
  return async (untrusted: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer | undefined> => {
    const question = forTerminal(untrusted);
    const lines = [`${colors.yellow("allow?")} ${foldForQuestion(question.summary, options.columns)}`];
    if (question.why) lines.push(colors.dim(`  (${question.why})`));
    if (question.diff && untrusted.diff) {
      lines.push(renderDiff(question.diff, colors, options.columns));
      options.shownDiffs?.remember(untrusted.diff);
    }
    const choices = [
      ...(question.project ? [`  [p]roject: always allow ${question.project} in this project (saved)`] : []),
      ...answerLines(question.remember, options.columns),
    ];
    let asked = [...lines, ...choices].join("\n");
    for (let tries = 1; ; tries++) {
      const typed = await options.ask(asked, signal);
      if (typed === undefined) return undefined;
      // "always" where nothing can be remembered (the command could not be checked part by part) allows this once.
      const answer = readApprovalAnswer(typed, question.remember.length > 0, question.project !== undefined);
      if (answer.type === "ask-reason") {
        const reason = await options.ask(colors.dim("  why not? (the model is told; Enter for no reason) > "), signal);
        if (reason === undefined) return undefined;
        return reason.trim() ? { type: "no", reason: reason.trim() } : { type: "no" };
      }
      if (answer.type !== "unclear") return answer;
      if (tries >= MAX_UNCLEAR_ANSWERS) return { type: "no" };
      const shown = fitWidth(forTerminal(typed.trim()), 40);
      asked = [colors.dim(`  "${shown}" is not one of the answers`), ...choices].join("\n");
    }
  };
}

/** Answers that are none of the choices before the question counts as a no (bounded, like everything). */
const MAX_UNCLEAR_ANSWERS = 3;

/**
 * The answers on one line; when the rule `always` would add makes it wider than the terminal, that
 * rule goes on a line of its own above, so the line the cursor waits on never wraps.
 */
function answerLines(remember: string[], columns: number): string[] {
  const answers = "  [y]es  [n]o  [r]efuse, saying why";
  if (remember.length === 0) return [`${answers} > `];
  const always = `  [a]lways allow ${remember.join(", ")} this session`;
  if (visibleWidth(`${answers}${always} > `) <= columns) return [`${answers}${always} > `];
  return [always, `${answers}  [a]lways > `];
}
