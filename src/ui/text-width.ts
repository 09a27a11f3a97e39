// Terminal column arithmetic shared by the Markdown renderer and the line editor. Widths are
// counted per grapheme cluster, as terminals draw them: an emoji with emoji presentation (🚀, ✅,
// ⚠️ with its variation selector, 👍🏽, a ZWJ family, a flag) takes two columns, as does an East Asian
// Wide or Fullwidth character; combining marks and format characters take none.
// Decision: no width library (string-width pulls in three packages and a 40 KB emoji regex); the
// engine's Unicode properties (Emoji_Presentation, Extended_Pictographic) cover emoji, and the
// table below is East Asian Width's Wide and Fullwidth blocks (UAX #11), which no regex property gives.
import { graphemesOf } from "./graphemes.ts";

const ANSI_PATTERN = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** East Asian Wide and Fullwidth blocks (UAX #11) that are not emoji: two columns each. */
const EAST_ASIAN_WIDE =
  /^[\u1100-\u115F\u2329\u232A\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uA960-\uA97F\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6\u{16FE0}-\u{16FE4}\u{17000}-\u{18AFF}\u{1B000}-\u{1B2FF}\u{1F200}-\u{1F2FF}\u{20000}-\u{3FFFD}]/u;
/** An emoji drawn as one (its default presentation), or a pictograph asked to be one by U+FE0F. */
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}|^\p{Extended_Pictographic}\uFE0F|^[#*0-9]\uFE0F?\u20E3/u;
/** A cluster of marks and format characters only (a stray combining accent, a zero-width space). */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

/** Text without its ANSI style sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Columns a string takes on screen (styles ignored, wide characters count two). */
export function visibleWidth(text: string): number {
  const plain = stripAnsi(text);
  if (/^[\x00-\x7e]*$/.test(plain)) return plain.length;
  let width = 0;
  for (const cluster of graphemesOf(plain)) width += clusterWidth(cluster);
  return width;
}

/** Columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  if (cluster.length === 1 && cluster < "\x7f") return 1;
  if (EMOJI_PRESENTATION.test(cluster) || EAST_ASIAN_WIDE.test(cluster)) return 2;
  return ZERO_WIDTH.test(cluster) ? 0 : 1;
}

/**
 * One line cut to `width` columns with an ellipsis, so it never wraps: a tab shows as two spaces
 * (a terminal would jump to its next tab stop, which the count cannot know), other control characters as one.
 */
export function fitWidth(text: string, width: number): string {
  const plain = text.replace(/\t/g, "  ").replace(/[\x00-\x1f\x7f]/g, " ");
  if (visibleWidth(plain) <= width) return plain;
  let used = 0;
  let out = "";
  for (const cluster of graphemesOf(plain)) {
    used += clusterWidth(cluster);
    // One ellipsis: a cut through a line that already ended in one (firstLine's "more lines" mark) keeps only the cut's.
    if (used > width - 1) return `${out.replace(/\s*…?\s*$/, "")}…`;
    out += cluster;
  }
  return out;
}

/** A multi-line text named on one line: its first line, and " …" when more lines follow. */
export function firstLine(text: string): string {
  const [first, ...rest] = text.split("\n");
  return rest.length > 0 ? `${first} …` : first;
}

/**
 * Text wrapped at spaces to `columns`, so the terminal never breaks a word: each row after the
 * first of a line is indented as its text began (the second column of a `/help` table row, after
 * its two-space gap, or the line's own indent). Styles are kept: widths ignore them. A word wider
 * than a row is left to the terminal.
 */
export function wrapToWidth(text: string, columns: number): string {
  return text
    .split("\n")
    .map((line) => wrapLine(line, columns))
    .join("\n");
}

/** Where a narrow table's second column starts, on the row below its first. */
const TABLE_INDENT = "    ";

function wrapLine(line: string, columns: number): string {
  if (visibleWidth(line) <= columns) return line;
  const plain = stripAnsi(line);
  const gap = /^\s*\S.*?\s{2,}(?=\S)/.exec(plain)?.[0].length;
  // A table row whose first column takes more than half the row: its second column goes below it.
  if (gap !== undefined && gap > columns / 2 && plain === line)
    return `${line.slice(0, gap).trimEnd()}\n${wrapLine(`${TABLE_INDENT}${line.slice(gap)}`, columns)}`;
  const hang = gap !== undefined && gap <= columns / 2 ? gap : (/^\s*/.exec(plain)?.[0].length ?? 0);
  const indent = " ".repeat(hang);
  const rows: string[] = [];
  let row = "";
  for (const word of line.split(/(?<=\S)(?= )/)) {
    // `word` keeps the spaces before it; a new row drops them for the indent.
    if (row && visibleWidth(row + word) > columns) {
      rows.push(row);
      row = indent + word.trimStart();
    } else row += word;
  }
  rows.push(row);
  return rows.join("\n");
}
