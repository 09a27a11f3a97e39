import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import { unifiedDiff } from "../shared/diff.ts";
import { openChecked } from "./open-checked.ts";
import { truncateMiddle } from "./output-limit.ts";
import { displayPath, lockOnFile, pathError, replaceContent, resolvePath, toolPath } from "./paths.ts";
import { checkReadRecord, recordRead } from "./read-records.ts";
import { similarity } from "./similarity.ts";

export const editFile = defineTool({
  name: "edit_file",
  description:
    "Replace exact text in a file (read it first). old_string must match once, whitespace included, unless replace_all is set.",
  kind: "edit",
  input: z.object({
    path: z.string(),
    old_string: z.string().describe("Exact text to replace"),
    new_string: z.string(),
    replace_all: z.boolean().optional().describe("Replace every occurrence"),
  }),
  describe: (input) => `edit ${input.path}`,
  lockKey: lockOnFile,
  effects: (input, cwd) => ({ writes: [resolvePath(cwd, input.path)] }),
  preview: (input, cwd) => previewEdit(input, cwd),
  async run(input, context) {
    const { cwd, state } = context;
    const { absolute, shown } = toolPath(cwd, input.path);
    if (input.old_string === "")
      return {
        isError: true,
        content: "Error: old_string is empty; use write_file to create or overwrite a whole file.",
      };
    if (input.old_string === input.new_string)
      return { isError: true, content: "Error: old_string and new_string are the same; nothing to change." };
    const wrongPath = await pathError(cwd, absolute, "file");
    if (wrongPath) return wrongPath;
    // Opened, and judged where it really is, before it is read or changed (open-checked.ts).
    const opened = await openChecked(absolute, "update", { tool: editFile, input, context });
    if ("error" in opened) return { isError: true, content: opened.error };
    const { handle } = opened;
    let before: string;
    let edited: ReturnType<typeof replaceText>;
    try {
      const record = checkReadRecord(state, absolute, await handle.stat());
      if (record === "unread")
        return { isError: true, content: `Error: read ${shown} with read_file before editing it.` };
      if (record === "changed")
        return {
          isError: true,
          content: `Error: ${shown} changed on disk since you last read it; read it again with read_file, then edit.`,
        };
      before = await handle.readFile("utf8");
      edited = replaceText(before, input, shown);
      if ("error" in edited) return { isError: true, content: edited.error };
      await replaceContent(handle, edited.after);
      recordRead(state, absolute, await handle.stat());
    } finally {
      await handle.close();
    }
    const diff = truncateMiddle(unifiedDiff(before, edited.after, shown));
    const count = edited.count === 1 ? "1 replacement" : `${edited.count} replacements`;
    return { content: `Edited ${shown} (${count}):\n${diff}`, summary: count, diff, changedFiles: [absolute] };
  },
});

/** What an edit_file call asks for. */
type EditInput = { old_string: string; new_string: string; replace_all?: boolean };

/** Where an ambiguous match lists its line numbers, at most this many. */
const MAX_LISTED_OCCURRENCES = 10;

/** The edit applied to a file's text (pure): the new text and how many replacements, or why it cannot apply. */
export function replaceText(
  before: string,
  input: EditInput,
  shown: string,
): { after: string; count: number } | { error: string } {
  const { oldText, newText } = matchLineEndings(before, input.old_string, input.new_string);
  const positions = findAll(before, oldText);
  if (positions.length === 0) return { error: noMatchMessage(before, input.old_string, shown) };
  if (positions.length > 1 && !input.replace_all) {
    const lines = positions.slice(0, MAX_LISTED_OCCURRENCES).map((position) => lineAt(before, position));
    const more = positions.length > MAX_LISTED_OCCURRENCES ? ", ..." : "";
    return {
      error: `Error: old_string occurs ${positions.length} times in ${shown} (lines ${lines.join(", ")}${more}). Include more surrounding lines to make it unique, or set replace_all to true.`,
    };
  }
  return { after: before.split(oldText).join(newText), count: positions.length };
}

/** The diff an edit_file call would make, for the approval question; undefined when it would fail. */
export async function previewEdit(input: EditInput & { path: string }, cwd: string): Promise<string | undefined> {
  const absolute = resolvePath(cwd, input.path);
  if (input.old_string === "" || input.old_string === input.new_string) return undefined;
  // Only a regular file is read for the question: a FIFO would wait for a writer (the run refuses it).
  if (!(await stat(absolute).catch(() => undefined))?.isFile()) return undefined;
  const before = await readFile(absolute, "utf8").catch(() => undefined);
  if (before === undefined) return undefined;
  const edited = replaceText(before, input, displayPath(cwd, absolute));
  return "error" in edited ? undefined : truncateMiddle(unifiedDiff(before, edited.after, displayPath(cwd, absolute)));
}

/**
 * In a CRLF file, old_string and new_string written with `\n` are matched and written with `\r\n`,
 * so the file keeps its line endings. Text that only matches as given (a mixed file) is used as given.
 */
function matchLineEndings(content: string, oldString: string, newString: string): { oldText: string; newText: string } {
  if (!content.includes("\r\n")) return { oldText: oldString, newText: newString };
  const toCrlf = (text: string) => text.replace(/\r?\n/g, "\r\n");
  if (content.includes(toCrlf(oldString))) return { oldText: toCrlf(oldString), newText: toCrlf(newString) };
  return { oldText: oldString, newText: newString };
}

function findAll(content: string, text: string): number[] {
  const positions: number[] = [];
  for (let index = content.indexOf(text); index !== -1; index = content.indexOf(text, index + text.length))
    positions.push(index);
  return positions;
}

function lineAt(content: string, position: number): number {
  let line = 1;
  for (let index = content.indexOf("\n"); index !== -1 && index < position; index = content.indexOf("\n", index + 1))
    line++;
  return line;
}

/** How many similar lines a failed match suggests. */
const MAX_HINT_LINES = 3;
/** How similar (0..1) a line must be to the first line of old_string to be suggested. */
const MIN_HINT_SIMILARITY = 0.5;
/** Suggested lines are cut to this many characters. */
const MAX_HINT_CHARS = 300;

/** Says old_string was not found and shows the lines most like its first line, numbered as read_file numbers them. */
function noMatchMessage(content: string, oldString: string, shown: string): string {
  const message = `Error: old_string was not found in ${shown}.`;
  const firstLine =
    oldString
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  if (/^\s*\d+\t/.test(oldString))
    return `${message} It starts with a line number; leave out the "N<tab>" prefix that read_file adds.`;
  const lines = content.split("\n");
  const hints = lines
    .map((line, index) => ({
      line: line.replace(/\r$/, ""),
      number: index + 1,
      score: similarity(line.trim(), firstLine),
    }))
    .filter((hint) => hint.score >= MIN_HINT_SIMILARITY)
    .sort((a, b) => b.score - a.score || a.number - b.number)
    .slice(0, MAX_HINT_LINES)
    .sort((a, b) => a.number - b.number);
  if (hints.length === 0) return `${message} Read the file again and copy the text exactly.`;
  const shownHints = hints
    .map((hint) => `${String(hint.number).padStart(6)}\t${hint.line.slice(0, MAX_HINT_CHARS)}`)
    .join("\n");
  return `${message} The most similar lines are:\n${shownHints}\nCopy the text exactly, including whitespace.`;
}
