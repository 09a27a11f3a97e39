// The question a chat asks before it continues a session recorded in another folder, whose tools
// would otherwise run here (src/cli/resume-folder.ts decides the same without a person). An empty or
// unknown answer cancels: nothing runs anywhere the person did not choose.
import type { Palette } from "./colors.ts";

/** What the person chose: work in the recorded folder, in this one, or not resume. */
export type ResumeFolderAnswer = "switch" | "stay" | "cancel";

export interface ResumeFolderQuestion {
  sessionId: string;
  /** The folder the session was recorded in. */
  recorded: string;
  /** The folder the chat works in now. */
  here: string;
  /** The recorded folder no longer exists: only staying here or cancelling is offered. */
  isVanished: boolean;
}

/** Asks where a resumed session should work. */
export async function askResumeFolder(
  ask: (question: string) => Promise<string | undefined>,
  colors: Palette,
  question: ResumeFolderQuestion,
): Promise<ResumeFolderAnswer> {
  const { sessionId, recorded, here } = question;
  const lines = question.isVanished
    ? [
        colors.yellow(`session ${sessionId} was recorded in ${recorded}, which no longer exists.`),
        `  continue it [h]ere (its tools run in ${here})  [c]ancel > `,
      ]
    : [
        colors.yellow(`session ${sessionId} was recorded in ${recorded}; this chat works in ${here}.`),
        `  [s]witch to ${recorded}  stay [h]ere (its tools run in ${here})  [c]ancel > `,
      ];
  const answer = (await ask(lines.join("\n")))?.trim().toLowerCase() ?? "";
  if (!question.isVanished && (answer === "s" || answer === "switch")) return "switch";
  if (answer === "h" || answer === "here" || answer === "stay") return "stay";
  return "cancel";
}
