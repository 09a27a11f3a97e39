import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import { unifiedDiff } from "../shared/diff.ts";
import { countOf } from "../shared/helpers.ts";
import { openChecked } from "./open-checked.ts";
import { truncateMiddle } from "./output-limit.ts";
import { displayPath, lockOnFile, replaceContent, resolvePath, toolPath } from "./paths.ts";
import { recordRead } from "./read-records.ts";

/** Files bigger than this before or after the write get no diff (it would be cut to nothing useful). */
const MAX_DIFF_FILE_BYTES = 1024 * 1024;

export const writeFile = defineTool({
  name: "write_file",
  description: "Create or overwrite a file (creates folders). To change part of a file, use edit_file.",
  kind: "edit",
  input: z.object({
    path: z.string(),
    content: z.string().describe("The whole new content"),
  }),
  describe: (input) => `write ${input.path}`,
  lockKey: lockOnFile,
  effects: (input, cwd) => ({ writes: [resolvePath(cwd, input.path)] }),
  preview: (input, cwd) => previewWrite(input, cwd),
  async run(input, context) {
    const { cwd, state } = context;
    const { absolute, shown } = toolPath(cwd, input.path);
    if ((await stat(absolute).catch(() => undefined))?.isDirectory())
      return { isError: true, content: `Error: ${shown} is a folder; give a file path.` };
    const bytes = Buffer.byteLength(input.content);
    // Opened, and judged where it really is, before anything is read or written (open-checked.ts).
    const opened = await openChecked(absolute, "write", { tool: writeFile, input, context });
    if ("error" in opened) return { isError: true, content: opened.error };
    const { handle, created } = opened;
    let before: string | undefined;
    let hasDiff: boolean;
    try {
      const previous = await handle.stat();
      hasDiff = previous.size <= MAX_DIFF_FILE_BYTES && bytes <= MAX_DIFF_FILE_BYTES;
      before = !created && hasDiff ? await handle.readFile("utf8") : undefined;
      await replaceContent(handle, input.content);
      recordRead(state, absolute, await handle.stat());
    } catch (error) {
      return { isError: true, content: `Error: could not write ${shown}: ${(error as Error).message}` };
    } finally {
      await handle.close();
    }
    const lines = countLines(input.content);
    const verb = created ? "Created" : "Overwrote";
    return {
      content: `${verb} ${shown} (${bytes} bytes, ${countOf(lines, "line")}).`,
      summary: `${verb.toLowerCase()} ${countOf(lines, "line")}`,
      diff: hasDiff ? truncateMiddle(unifiedDiff(before, input.content, shown)) : undefined,
      changedFiles: [absolute],
    };
  },
});

/** The diff a write_file call would make, for the approval question; undefined for a file too big to diff. */
export async function previewWrite(input: { path: string; content: string }, cwd: string): Promise<string | undefined> {
  const absolute = resolvePath(cwd, input.path);
  const previous = await stat(absolute).catch(() => undefined);
  // Only a regular file is read for the question: a FIFO would wait for a writer (the run refuses it).
  if (
    (previous && !previous.isFile()) ||
    (previous?.size ?? 0) > MAX_DIFF_FILE_BYTES ||
    Buffer.byteLength(input.content) > MAX_DIFF_FILE_BYTES
  )
    return undefined;
  const before = previous ? await readFile(absolute, "utf8") : undefined;
  return truncateMiddle(unifiedDiff(before, input.content, displayPath(cwd, absolute)));
}

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
