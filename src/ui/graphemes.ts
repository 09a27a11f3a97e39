// Text as a person sees it: grapheme clusters (an emoji with its skin tone or ZWJ parts, a letter
// with its combining marks, a flag), so the editor never moves into or deletes half of one, and
// nothing it hands on holds a lone UTF-16 surrogate (see shared/well-formed.ts for text from elsewhere).

let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of `text`, in order. */
export function graphemesOf(text: string): string[] {
  // Plain ASCII without CR (CR LF is one cluster) is one cluster per unit: the common case, no segmenter needed.
  if (/^[\x00-\x0c\x0e-\x7e]*$/.test(text)) return text.split("");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** Where the cluster before `offset` starts (0 at the start). */
export function previousBoundary(text: string, offset: number): number {
  if (offset <= 0) return 0;
  const before = graphemesOf(text.slice(0, offset));
  return offset - (before.at(-1)?.length ?? 0);
}

/** Where the cluster at `offset` ends (the text's length at the end). */
export function nextBoundary(text: string, offset: number): number {
  if (offset >= text.length) return text.length;
  const [first] = graphemesOf(text.slice(offset));
  return offset + (first?.length ?? 0);
}
