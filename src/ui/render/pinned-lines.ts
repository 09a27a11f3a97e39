// Lines kept at the bottom of a terminal stream (the plan, running subagents): erased before
// anything else is written there and drawn again after it, so they stay below the output. The
// caller keeps each line shorter than the terminal is wide: a wrapped line would be miscounted.

/**
 * What a stream shows below all its pinned blocks (the chat's input line during a turn,
 * pinned-input.ts), by stream. An in-place redraw clears to the end of the screen, taking that
 * with it, so it is drawn again right after.
 */
const drawnBelow = new WeakMap<NodeJS.WriteStream, () => void>();

/** Sets (or, with undefined, ends) what is drawn again below the stream's pinned blocks after an in-place redraw. */
export function setDrawnBelow(stream: NodeJS.WriteStream, draw: (() => void) | undefined): void {
  if (draw) drawnBelow.set(stream, draw);
  else drawnBelow.delete(stream);
}

/** Draws again what is below the stream's pinned blocks, after something above it (the tool clock) was redrawn over it. */
export function redrawBelow(stream: NodeJS.WriteStream): void {
  drawnBelow.get(stream)?.();
}

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
    redrawBelow(this.stream);
  }

  /** The lines stay in the scrollback as they stand; the next draw starts below them. */
  leave(): void {
    this.drawnLines = 0;
  }

  private eraseSequence(): string {
    return `\r\x1b[${this.drawnLines}A\x1b[0J`;
  }
}
