import { createReadStream } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type ToolOutput } from "../core/tool.ts";
import { countOf } from "../shared/helpers.ts";
import { describeImage, imageFileTooLarge, imageTypeOf, prepareImage } from "./image-file.ts";
import { openChecked } from "./open-checked.ts";
import { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./output-limit.ts";
import { isBinaryFile, pathError, resolvePath, toolPath } from "./paths.ts";
import { recordRead } from "./read-records.ts";

export const readFile = defineTool({
  name: "read_file",
  description:
    "Read a text file (lines come numbered; use offset and limit for long files) or an image (PNG, JPEG, GIF, WebP), which you then see.",
  kind: "read",
  input: z.object({
    path: z.string(),
    offset: z.number().int().min(1).optional().describe("First line, 1-based"),
    limit: z.number().int().min(1).max(MAX_OUTPUT_LINES).optional().describe("Number of lines"),
  }),
  describe: (input) =>
    `read ${input.path}${input.offset ? ` from line ${input.offset}` : ""}${input.limit ? ` (${input.limit} lines)` : ""}`,
  effects: (input, cwd) => ({ reads: [resolvePath(cwd, input.path)] }),
  async run(input, context) {
    const { cwd, signal, state } = context;
    const { absolute, shown } = toolPath(cwd, input.path);
    const wrongPath = await pathError(cwd, absolute, "file", "; use list_files to see what it holds");
    if (wrongPath) return wrongPath;
    // Opened, and judged where it really is, before a byte is read (open-checked.ts).
    const opened = await openChecked(absolute, "read", { tool: readFile, input, context });
    if ("error" in opened) return { isError: true, content: opened.error };
    const { handle } = opened;
    const first = input.offset ?? 1;
    const limit = Math.min(input.limit ?? MAX_OUTPUT_LINES, MAX_OUTPUT_LINES);
    let stats, lines, hasMore, lastLine;
    try {
      stats = await handle.stat();
      const image = await readImage(handle, stats.size, shown);
      if (image) {
        recordRead(state, absolute, stats);
        return image;
      }
      if (await isBinaryFile(handle))
        return {
          isError: true,
          content: `Error: ${shown} is a binary file (${stats.size} bytes); read_file shows text files only.`,
        };
      ({ lines, hasMore, lastLine } = await readLines(handle, first, limit, signal));
    } finally {
      await handle.close();
    }
    recordRead(state, absolute, stats);
    if (stats.size === 0) return { content: `[${shown} is empty]`, summary: "empty file" };
    if (lines.length === 0)
      return {
        isError: true,
        content: `Error: offset ${first} is past the end of ${shown}, which has ${lastLine} lines.`,
      };

    const last = first + lines.length - 1;
    const note = hasMore
      ? `\n[showing lines ${first}-${last}; call again with offset=${last + 1} to read more]`
      : first > 1
        ? `\n[showing lines ${first}-${last} of ${last}]`
        : "";
    return { content: lines.join("\n") + note, summary: countOf(lines.length, "line") };
  },
});

/** The file as an image for the model when its first bytes say it is one; undefined for any other file. */
async function readImage(handle: FileHandle, size: number, shown: string): Promise<ToolOutput | undefined> {
  const head = Buffer.alloc(16);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const type = imageTypeOf(head.subarray(0, bytesRead));
  if (!type) return undefined;
  const tooLarge = imageFileTooLarge(size, shown);
  if (tooLarge) return { isError: true, content: `Error: ${tooLarge}.` };
  const prepared = await prepareImage(await handle.readFile(), type, shown);
  if ("error" in prepared) return { isError: true, content: `Error: ${prepared.error}.` };
  const described = describeImage(prepared);
  return { content: `[image ${shown}: ${described}]`, images: [prepared.image], summary: `image ${described}` };
}

/** Longer lines are cut (minified code, data files). */
const MAX_LINE_CHARS = 2000;

/**
 * Streams the file and returns numbered lines from `first`, at most `limit` of them and
 * MAX_OUTPUT_BYTES in all; stops reading as soon as it has them, so huge files cost little.
 */
async function readLines(file: FileHandle, first: number, limit: number, signal: AbortSignal) {
  const lines: string[] = [];
  let bytes = 0;
  let lineNumber = 0;
  let hasMore = false;
  let pending = "";
  let pendingLength = 0;
  const stream = createReadStream("", { fd: file, encoding: "utf8", signal, start: 0, autoClose: false });

  const take = (line: string, length: number): boolean => {
    lineNumber++;
    if (lineNumber < first) return true;
    if (lines.length >= limit) {
      hasMore = true;
      return false;
    }
    const text = line.replace(/\r$/, "");
    const cut = length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}... [line cut: ${length} chars]` : text;
    const numbered = `${String(lineNumber).padStart(6)}\t${cut}`;
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > MAX_OUTPUT_BYTES && lines.length > 0) {
      hasMore = true;
      return false;
    }
    lines.push(numbered);
    return true;
  };

  try {
    reading: for await (const chunk of stream as AsyncIterable<string>) {
      let start = 0;
      for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
        const piece = chunk.slice(start, end);
        const line = pending + piece.slice(0, Math.max(0, MAX_LINE_CHARS + 1 - pending.length));
        const length = pendingLength + piece.length;
        pending = "";
        pendingLength = 0;
        start = end + 1;
        if (!take(line, length)) break reading;
      }
      const rest = chunk.slice(start);
      if (pending.length <= MAX_LINE_CHARS) pending += rest.slice(0, MAX_LINE_CHARS + 1 - pending.length);
      pendingLength += rest.length;
    }
    if (!hasMore && pendingLength > 0) take(pending, pendingLength);
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    stream.destroy();
  }
  return { lines, hasMore, lastLine: lineNumber };
}
