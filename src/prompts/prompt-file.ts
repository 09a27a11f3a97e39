// A prompt file (a SKILL.md, an agent, a custom command) is a page of instructions: one that is
// not a regular file or is larger than its bound is left out unread, with the reason.
import { readFileSync, statSync } from "node:fs";

/** A prompt file's text, or why it is left out; `isUnreadable` when it could not be read at all (missing, no permission). */
export type PromptFileText = { text: string } | { leftOut: string; isUnreadable: boolean };

export function readPromptFile(file: string, maxBytes: number): PromptFileText {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { leftOut: "not a regular file", isUnreadable: false };
    if (stat.size > maxBytes) return { leftOut: `${stat.size} bytes, more than ${maxBytes}`, isUnreadable: false };
    return { text: readFileSync(file, "utf8") };
  } catch (error) {
    return { leftOut: `cannot read it: ${(error as Error).message}`, isUnreadable: true };
  }
}
