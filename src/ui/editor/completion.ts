// Tab completion in the chat input: slash commands at the start, `@path` file names anywhere.
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import type { EditBuffer } from "./edit-buffer.ts";

/** Candidates listed at most, so a Tab in a huge folder stays quick and readable. */
const MAX_CANDIDATES = 200;

/** The text before the cursor from `start` is replaced by one of `candidates`. */
export interface Completion {
  start: number;
  candidates: string[];
  /** Whether a single candidate is final (a command, a file) and earns a trailing space. */
  isFinal: (candidate: string) => boolean;
}

export function completeInput(
  text: string,
  cursor: number,
  cwd: string,
  commands: readonly string[],
): Completion | undefined {
  const before = text.slice(0, cursor);
  if (/^\/\S*$/.test(before)) {
    return { start: 0, candidates: commands.filter((command) => command.startsWith(before)), isFinal: () => true };
  }
  const mention = /(?:^|\s)@(\S*)$/.exec(before);
  if (!mention) return undefined;
  const typed = mention[1];
  const slash = typed.lastIndexOf("/");
  const folder = typed.slice(0, slash + 1);
  const prefix = typed.slice(slash + 1);
  let entries;
  try {
    entries = readdirSync(resolve(cwd, folder.replace(/^~(?=\/)/, process.env.HOME ?? "~") || "."), {
      withFileTypes: true,
    });
  } catch {
    return { start: cursor - typed.length - 1, candidates: [], isFinal: () => true };
  }
  const candidates = entries
    .filter((entry) => entry.name.startsWith(prefix) && (prefix.startsWith(".") || !entry.name.startsWith(".")))
    .map((entry) => `@${folder}${entry.name}${entry.isDirectory() ? "/" : ""}`)
    .sort()
    .slice(0, MAX_CANDIDATES);
  return { start: cursor - typed.length - 1, candidates, isFinal: (candidate) => !candidate.endsWith("/") };
}

/** The longest text every candidate starts with. */
function commonPrefix(candidates: string[]): string {
  let prefix = candidates[0] ?? "";
  for (const candidate of candidates) while (!candidate.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * The input with Tab's completion applied: the single candidate (and a space after a final one)
 * or the candidates' common prefix. Undefined when that adds nothing, so the candidates are listed.
 */
export function applyCompletion(buffer: EditBuffer, completion: Completion): EditBuffer | undefined {
  const { text, cursor } = buffer;
  const typed = text.slice(completion.start, cursor);
  const only = completion.candidates.length === 1 ? completion.candidates[0] : undefined;
  const replacement = only ? only + (completion.isFinal(only) ? " " : "") : commonPrefix(completion.candidates);
  if (replacement.length <= typed.length) return undefined;
  return {
    text: text.slice(0, completion.start) + replacement + text.slice(cursor),
    cursor: completion.start + replacement.length,
  };
}
