// Lines kept at the bottom of a terminal stream (the plan, running subagents): erased before
// anything else is written there and drawn again after it, so they stay below the output. The
// caller keeps each line shorter than the terminal is wide: a wrapped line would be miscounted.

/** One pinned block of lines on one stream; blocks stacked below each other are erased bottom first. */
export class PinnedLines {
  private drawnLines = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  get isDrawn(): boolean {
    return this.drawnLines > 0;
  }

  /** Takes the lines off the screen (the cursor ends where they began). */
  erase(): void {
    if (this.drawnLines === 0) return;
    this.stream.write(this.eraseSequence());
    this.drawnLines = 0;
  }

  /** Puts the lines where the cursor is (at the start of a line); nothing when already drawn. */
  draw(lines: readonly string[]): void {
    if (this.drawnLines > 0 || lines.length === 0) return;
    this.stream.write(`${lines.join("\n")}\n`);
    this.drawnLines = lines.length;
  }

  /** Redraws drawn lines in place, in one write so they do not flicker. */
  replace(lines: readonly string[]): void {
    if (this.drawnLines === 0) return;
    this.stream.write(`${this.eraseSequence()}${lines.length > 0 ? `${lines.join("\n")}\n` : ""}`);
    this.drawnLines = lines.length;
  }

  /** The lines stay in the scrollback as they stand; the next draw starts below them. */
  leave(): void {
    this.drawnLines = 0;
  }

  private eraseSequence(): string {
    return `\r\x1b[${this.drawnLines}A\x1b[0J`;
  }
}
