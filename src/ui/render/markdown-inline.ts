// Inline Markdown for the terminal: `code`, **bold**, *italic*, ~~strike~~, [links](url), and
// where a streamed line may be cut between words without cutting one of them.

const sgr = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
/** The terminal styles Markdown is drawn with. */
export const STYLE = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
  code: sgr("36", "39"),
  heading: sgr("1;4", "22;24"),
};

const CODE_SPAN = /(`+[^`]+`+)/;
const LINK = /\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Inline Markdown: `code`, **bold**, *italic*, ~~strike~~, [links](url). Code spans are left as written. */
export function renderInline(text: string): string {
  return text
    .split(CODE_SPAN)
    .map((part, index) => (index % 2 === 1 ? STYLE.code(part.replace(/^`+|`+$/g, "")) : renderEmphasis(part)))
    .join("");
}

function renderEmphasis(text: string): string {
  // Links first: the later styles add escape sequences, whose `[` a link pattern would misread.
  return text
    .replace(LINK, (_, label: string, url: string) =>
      label === url ? STYLE.underline(url) : `${STYLE.underline(label)} ${STYLE.dim(`(${url})`)}`,
    )
    .replace(/\*\*(?=\S)(.+?)\*\*|(?<!\w)__(?=\S)(.+?)__(?!\w)/g, (_, a, b) => STYLE.bold(a ?? b))
    .replace(/(?<![*\w])\*(?=[^\s*])([^*]+?)\*(?!\*)|(?<!\w)_(?=[^\s_])([^_]+?)_(?!\w)/g, (_, a, b) =>
      STYLE.italic(a ?? b),
    )
    .replace(/~~(?=\S)(.+?)~~/g, (_, a) => STYLE.strike(a));
}

/**
 * Whether every code span, emphasis and link opened in `text` is closed, so the text can be
 * drawn on its own and what follows it cannot change how it looks. Counting markers is
 * conservative: an unpaired `*` (`2 * 3`) keeps the rest of its line together, which is safe.
 */
export function isInlineClosed(text: string): boolean {
  const outsideCode = text.split(CODE_SPAN).filter((_, index) => index % 2 === 0);
  if (outsideCode.some((part) => part.includes("`"))) return false;
  const plain = outsideCode.join(" ").replace(LINK, " ");
  if (/\[[^\]]*$/.test(plain)) return false; // a link's label may go on past the space
  const isEven = (pattern: RegExp, within = plain) => (within.match(pattern)?.length ?? 0) % 2 === 0;
  return (
    isEven(/\*\*/g) &&
    isEven(/\*/g, plain.replace(/\*\*/g, "")) &&
    isEven(/~~/g) &&
    // An underscore inside a word (snake_case) is no marker.
    isEven(/(?<!\w)_|_(?!\w)/g)
  );
}
