// The one-time question a chat asks before it uses a folder's project settings: what they would
// run, or, when a trusted folder's settings changed, the diff. An empty answer is a no.
import type { TrustReview } from "../permissions/folder-trust-review.ts";
import type { AskFn } from "./approval.ts";
import type { Palette } from "./colors.ts";
import { renderDiff } from "./diff-render.ts";
import { foldForQuestion } from "./fold-for-question.ts";

/** Diff lines shown when trusted settings changed (they are short files; the rest is summarised). */
const TRUST_DIFF_LINES = 60;
/** Lines of one hook command or MCP server shown (a padded one is folded, with what is left out counted). */
const TRUST_ITEM_LINES = 6;

export interface TrustQuestionOptions {
  ask: AskFn;
  colors: Palette;
  /** Terminal width, for fitting diff lines. */
  columns: number;
}

/** Asks whether to trust the folder; resolves true only for yes. */
export function createTrustQuestion(options: TrustQuestionOptions): (review: TrustReview) => Promise<boolean> {
  const { colors } = options;
  return async (review) => {
    const lines: string[] = [];
    if (review.changed) {
      lines.push(colors.yellow("This folder's project settings changed since you trusted it:"));
      lines.push(renderDiff(review.changed.diff, colors, options.columns, TRUST_DIFF_LINES));
      lines.push("With the change, they would:");
    } else {
      lines.push(
        colors.yellow(`This folder (${review.folder}) has project settings that run code or widen permissions:`),
      );
    }
    for (const { file, items } of review.wouldRun)
      lines.push(
        `  ${colors.bold(file)}`,
        ...items.map((item) => `    ${foldForQuestion(item, options.columns, TRUST_ITEM_LINES)}`),
      );
    if (review.languageServers.length > 0)
      lines.push("  Language servers:", ...review.languageServers.map((line) => `    ${line}`));
    lines.push(
      colors.dim(
        "Hooks and MCP servers run outside the sandbox; allow rules let commands run without asking; skills are instructions the model follows.",
      ),
    );
    lines.push(`  trust this folder? [y]es  [n]o (ignore them this session) > `);
    const answer = (await options.ask(lines.join("\n"), new AbortController().signal))?.trim().toLowerCase();
    return answer === "y" || answer === "yes";
  };
}
