// Edits and writes as coloured unified diffs, and long tool output folded to a few lines.
import type { Palette } from "./colors.ts";
import { fitWidth } from "./text-width.ts";
import { formatBytes } from "../core/helpers.ts";

/** Diff lines shown for one edit; the rest is summarised (the model saw the whole diff). */
export const DIFF_SHOWN_LINES = 40;
/** Lines of a tool's ordinary output shown: the first ones and the last one. */
export const OUTPUT_HEAD_LINES = 3;
export const OUTPUT_TAIL_LINES = 1;

/** A unified diff with `+` green, `-` red, hunk headers cyan, context dim; folded past `maxLines`. */
export function renderDiff(diff: string, colors: Palette, columns: number, maxLines = DIFF_SHOWN_LINES): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines).map((line) => colorDiffLine(fitWidth(line, columns), colors));
  if (lines.length > maxLines) shown.push(colors.dim(`… ${lines.length - maxLines} more diff lines`));
  return shown.join("\n");
}

/** A diff in one line, `+3 -1 src/x.ts`, for a change the person already saw in full. */
export function summarizeDiff(diff: string, colors: Palette): string {
  const lines = diff.split("\n");
  const file = lines.find((line) => line.startsWith("+++ b/"))?.slice("+++ b/".length) ?? "";
  const added = lines.filter((line) => line.startsWith("+") && !line.startsWith("+++")).length;
  const removed = lines.filter((line) => line.startsWith("-") && !line.startsWith("---")).length;
  return `${colors.green(`+${added}`)} ${colors.red(`-${removed}`)} ${colors.dim(file)}`;
}

function colorDiffLine(line: string, colors: Palette): string {
  if (line.startsWith("+++") || line.startsWith("---")) return colors.bold(line);
  if (line.startsWith("@@")) return colors.cyan(line);
  if (line.startsWith("+")) return colors.green(line);
  if (line.startsWith("-")) return colors.red(line);
  return colors.dim(line);
}

/**
 * Tool output folded for the trace: the first lines and the last, each cut to the terminal's
 * width (so an 80-column terminal never wraps it), with a note of how much was left out.
 */
export function foldOutput(text: string, columns: number, indent = "  "): string {
  const lines = text.replace(/\n+$/, "").split("\n");
  const fit = (line: string) => indent + fitWidth(line, columns - indent.length);
  if (lines.length <= OUTPUT_HEAD_LINES + OUTPUT_TAIL_LINES + 1) return lines.map(fit).join("\n");
  const hidden = lines.length - OUTPUT_HEAD_LINES - OUTPUT_TAIL_LINES;
  const hiddenBytes = Buffer.byteLength(lines.slice(OUTPUT_HEAD_LINES, lines.length - OUTPUT_TAIL_LINES).join("\n"));
  return [
    ...lines.slice(0, OUTPUT_HEAD_LINES).map(fit),
    `${indent}… ${hidden} lines hidden (${formatBytes(hiddenBytes)})`,
    ...lines.slice(lines.length - OUTPUT_TAIL_LINES).map(fit),
  ].join("\n");
}
