// A prompt file (a SKILL.md, an agent, a custom command) is a page of instructions: one that is
// not a regular file or is larger than its bound is left out unread, with the reason. A
// repository's prompt file is read only when its real path stays inside the repository: a cloned
// `.claude/agents/x.md` that links to a file of the user's is not the repository's to hand over.
import { readFileSync, statSync } from "node:fs";
import { whyOutOfReach } from "../shared/path-reach.ts";
import { realOrSame } from "../shared/real-path.ts";

/** A prompt file's text, or why it is left out; `isUnreadable` when it could not be read at all (missing, no permission). */
export type PromptFileText = { text: string } | { leftOut: string; isUnreadable: boolean };

export function readPromptFile(file: string, maxBytes: number, repositoryRoot?: string): PromptFileText {
  const outOfReach = repositoryRoot
    ? whyOutOfReach(file, { secretPaths: [], roots: [realOrSame(repositoryRoot)], rootsName: "the repository" })
    : undefined;
  if (outOfReach) return { leftOut: outOfReach, isUnreadable: false };
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { leftOut: "not a regular file", isUnreadable: false };
    if (stat.size > maxBytes) return { leftOut: `${stat.size} bytes, more than ${maxBytes}`, isUnreadable: false };
    return { text: readFileSync(file, "utf8") };
  } catch (error) {
    return { leftOut: `cannot read it: ${(error as Error).message}`, isUnreadable: true };
  }
}
