// One line of Markdown prose (a paragraph's line, a list item, a quote) drawn as it streams and
// wrapped at word boundaries to the terminal's width, continuation rows indented under the text.
// It is cut into segments at the spaces where no inline construct is open (isInlineClosed): a
// segment is drawn as soon as the space after it arrives, and never changes after that. The
// cuts depend on the text alone, not on how it was split into deltas, so a streamed line looks
// exactly like the same line drawn whole.

import { visibleWidth } from "../text-width.ts";
import { isInlineClosed, renderInline } from "./markdown-inline.ts";

/** How a prose line is laid out: its first row's marker, the indent of the rows after, its style. */
export interface ProseLayout {
  /** Drawn before the first word (`• `, `1. `, `│ `, or the line's own indent). */
  first: string;
  /** Drawn before each continuation row. */
  rest: string;
  /** Applied to each segment's rendered text (italic for a quote). */
  style(text: string): string;
}

export class ProseLine {
  /** The line's text after its marker, as far as it has come. */
  private text = "";
  /** Where the next segment starts in `text`. */
  private start = 0;
  /** `text` before here has been looked at for cuts. */
  private checked = 0;
  private column = 0;
  private hasWords = false;

  constructor(
    private readonly layout: ProseLayout,
    private readonly columns: () => number,
  ) {}

  /** More of the line; returns what can be drawn now: each segment the space after it has reached. */
  push(text: string): string {
    this.text += text;
    let out = "";
    for (let i = Math.max(this.start, this.checked); i < this.text.length; i++) {
      if (!/\s/.test(this.text[i])) continue;
      const segment = this.text.slice(this.start, i);
      if (segment.trim() === "") this.start = i + 1;
      else if (isInlineClosed(segment)) {
        out += this.place(segment);
        this.start = i + 1;
      }
    }
    this.checked = this.text.length;
    return out;
  }

  /** The line's newline came: the rest of it, then the newline. */
  end(): string {
    const rest = this.text.slice(this.start).trim();
    const out = rest ? this.place(rest) : this.hasWords ? "" : this.layout.first;
    return `${out}\n`;
  }

  /** A segment's words, each after a space or, when it would not fit, on a new indented row. */
  private place(segment: string): string {
    let out = "";
    for (const word of this.layout.style(renderInline(segment)).split(" ")) {
      const width = visibleWidth(word);
      if (!this.hasWords) {
        out += this.layout.first + word;
        this.column = visibleWidth(this.layout.first) + width;
        this.hasWords = true;
      } else if (this.column + 1 + width <= this.columns()) {
        out += ` ${word}`;
        this.column += 1 + width;
      } else {
        // A word wider than a whole row is left to the terminal to wrap.
        out += `\n${this.layout.rest}${word}`;
        this.column = visibleWidth(this.layout.rest) + width;
      }
    }
    return out;
  }
}
