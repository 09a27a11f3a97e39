// Edits and writes as coloured unified diffs, and long tool output folded to a few lines.

import { REFUSED_SUMMARY } from "../core/run-tools.ts";
import { formatBytes } from "../shared/helpers.ts";
import type { Palette } from "./colors.ts";
import { fitWidth, wrapToWidth } from "./text-width.ts";

/** Diff lines shown for one edit; the rest is summarised (the model saw the whole diff). */
export const DIFF_SHOWN_LINES = 40;
/** Lines of a tool's ordinary output shown: the first ones and the last one. */
export const OUTPUT_HEAD_LINES = 3;
export const OUTPUT_TAIL_LINES = 1;

/**
 * A unified diff with `+` green, `-` red, hunk headers cyan, context dim; folded past `maxLines`.
 * Each line of a hunk carries its line number (the old file's for a removed line, the new one's
 * otherwise), and in a removed line paired with an added one the characters that changed are
 * shown inverted, as the best peers' diffs do.
 */
export function renderDiff(diff: string, colors: Palette, columns: number, maxLines = DIFF_SHOWN_LINES): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const numbers = lineNumbers(lines);
  const gutter = Math.max(0, ...numbers.map((number) => String(number ?? "").length));
  const changed = changedSpans(lines, numbers);
  const shown = lines.slice(0, maxLines).map((line, index) => {
    const number = numbers[index];
    if (number === undefined) return colorDiffLine(fitWidth(line, columns), colors);
    const lead = `${String(number).padStart(gutter)} `;
    const span = changed.get(index);
    const fitted = fitWidth(line, columns - lead.length);
    const body = span && fitted === line ? highlightSpan(line, span, colors) : line;
    return colors.dim(lead) + colorDiffLine(fitted === line ? body : fitted, colors);
  });
  if (lines.length > maxLines) shown.push(colors.dim(`… ${lines.length - maxLines} more diff lines`));
  return shown.join("\n");
}

/** Each hunk line's number in its file (old for `-`, new for `+` and context); undefined for headers. */
function lineNumbers(lines: readonly string[]): Array<number | undefined> {
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  return lines.map((line) => {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      [oldLine, newLine, inHunk] = [Number(hunk[1]), Number(hunk[2]), true];
      return undefined;
    }
    if (!inHunk || line.startsWith("\\")) return undefined;
    if (line.startsWith("-")) return oldLine++;
    if (line.startsWith("+")) return newLine++;
    oldLine++;
    return newLine++;
  });
}

/**
 * The changed part of each line in a run of removed lines followed by added ones, paired in
 * order (the rest of the longer side are whole new or gone lines): what is left between their
 * common start and common end. A line changed throughout
 * gets none (it is all new; an inverted whole line would only shout).
 */
function changedSpans(
  lines: readonly string[],
  numbers: ReadonlyArray<number | undefined>,
): Map<number, [number, number]> {
  const spans = new Map<number, [number, number]>();
  const isRemoved = (index: number) => numbers[index] !== undefined && lines[index].startsWith("-");
  const isAdded = (index: number) => numbers[index] !== undefined && lines[index].startsWith("+");
  for (let start = 0; start < lines.length; start++) {
    if (!isRemoved(start) || (start > 0 && isRemoved(start - 1))) continue;
    let removed = start;
    while (removed < lines.length && isRemoved(removed)) removed++;
    let added = removed;
    while (added < lines.length && isAdded(added)) added++;
    for (let i = 0; i < Math.min(removed - start, added - removed); i++) {
      const [before, after] = [lines[start + i], lines[removed + i]];
      const max = Math.min(before.length, after.length);
      let prefix = 1; // past the +/- marker
      while (prefix < max && before[prefix] === after[prefix]) prefix++;
      let suffix = 0;
      while (suffix < max - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
      // Never between the halves of a surrogate pair (🎉 and 🎊 share their first).
      if (/[\uD800-\uDBFF]/.test(before[prefix - 1] ?? "")) prefix--;
      if (/[\uDC00-\uDFFF]/.test(before[before.length - suffix] ?? "")) suffix--;
      if (prefix === 1 && suffix === 0) continue;
      spans.set(start + i, [prefix, before.length - suffix]);
      spans.set(removed + i, [prefix, after.length - suffix]);
    }
  }
  return spans;
}

function highlightSpan(line: string, [from, to]: [number, number], colors: Palette): string {
  if (to <= from) return line;
  return `${line.slice(0, from)}${colors.inverse(line.slice(from, to))}${line.slice(to)}`;
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
/** A tool's result as the trace shows it: folded, but a refusal whole, wrapped at words (it names the command, and the rule and file that refused it). */
export function foldToolOutput(result: { content: string; summary?: string }, columns: number): string {
  if (result.summary !== REFUSED_SUMMARY) return foldOutput(result.content, columns);
  return wrapToWidth(result.content.trimEnd(), Math.max(20, columns - 2)).replace(/^/gm, "  ");
}

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
