import { cutMiddle } from "../shared/helpers.ts";

/** Most a single tool result may hand the model; the rest is cut from the middle. */
export const MAX_OUTPUT_BYTES = 30 * 1024;
/** Most lines a single tool result may hand the model. */
export const MAX_OUTPUT_LINES = 2000;

/**
 * Keeps the head and the tail of a long output (where errors and summaries usually are)
 * and says how much was cut in between. Cuts on line boundaries where it can.
 */
export function truncateMiddle(text: string, maxBytes = MAX_OUTPUT_BYTES, maxLines = MAX_OUTPUT_LINES): string {
  const bytes = Buffer.byteLength(text);
  const lines = text.split("\n");
  if (bytes <= maxBytes && lines.length <= maxLines) return text;

  const half = Math.floor(maxBytes / 2);
  const halfLines = Math.floor(maxLines / 2);
  if (lines.length === 1) return cutMiddle(text, half);
  const head = takeLines(lines, halfLines, half);
  const tail = takeLines(lines.slice(head.length).reverse(), halfLines, half, true).reverse();
  const cutLines = lines.length - head.length - tail.length;
  const cutBytes = bytes - Buffer.byteLength(head.join("\n")) - Buffer.byteLength(tail.join("\n"));
  const note = `\n[... ${cutLines} lines (${cutBytes} bytes) cut from the middle of this output ...]\n`;
  return head.join("\n") + note + tail.join("\n");
}

/** Whole lines from the front of `lines`, within both limits (at least part of one line). */
function takeLines(lines: string[], maxLines: number, maxBytes: number, isTail = false): string[] {
  const taken: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (taken.length >= maxLines) break;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      if (taken.length === 0) taken.push(sliceBytes(line, maxBytes, isTail));
      break;
    }
    taken.push(line);
    bytes += size;
  }
  return taken;
}

/** The first (or, for a tail, last) `maxBytes` of a line, without a split character at the cut. */
function sliceBytes(line: string, maxBytes: number, fromEnd: boolean): string {
  const buffer = Buffer.from(line);
  if (fromEnd)
    return buffer
      .subarray(buffer.length - maxBytes)
      .toString("utf8")
      .replace(/^\uFFFD+/, "");
  return buffer
    .subarray(0, maxBytes)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
}
