// Terminal column arithmetic shared by the Markdown renderer and the line editor.

const ANSI_PATTERN = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** East Asian wide and emoji ranges: two columns each. */
const WIDE_PATTERN =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;
/** Combining marks and zero-width characters: no column of their own. */
const ZERO_WIDTH_PATTERN = /[\u0300-\u036F\u200B-\u200F]|\uFE0F/u;

/** Text without its ANSI style sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Columns a string takes on screen (styles ignored, wide characters count two). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of stripAnsi(text)) width += charWidth(char);
  return width;
}

export function charWidth(char: string): number {
  if (ZERO_WIDTH_PATTERN.test(char)) return 0;
  return WIDE_PATTERN.test(char) ? 2 : 1;
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
  for (const char of plain) {
    used += charWidth(char);
    if (used > width - 1) return `${out}…`;
    out += char;
  }
  return out;
}
