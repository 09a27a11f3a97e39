// A running tool's elapsed time: a dim `bash> sleep 5 … 3s` on the cursor's line, redrawn each
// second while tools run, from a tool's first second on (a quick tool shows nothing). Like the
// thinking spinner it lives on the line below the output: whatever the renderer writes takes that
// line first (hide) and the clock comes back at its next tick. A question (an approval) pauses it
// until the renderer's next output, so nothing is ever drawn over the question. Under the clock's
// line go the oldest call's last output lines (live-output.ts), erased and drawn with it.
import { formatDuration } from "../../shared/helpers.ts";
import type { Palette } from "../colors.ts";
import { fitWidth } from "../text-width.ts";
import { redrawBelow } from "./pinned-lines.ts";

/** How often the clock redraws; also how long a tool runs before the clock shows. */
const TICK_MS = 1000;
/** Assumed width when the stream does not say. */
const DEFAULT_COLUMNS = 80;

export class ToolClock {
  /** By call id, in the order they started. */
  private readonly running = new Map<string, { summary: string; startedAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private isDrawn = false;
  /** Output lines drawn under the clock's line (the cursor is at the end of the last one). */
  private drawnBelow = 0;
  private isPaused = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly colors: Palette,
    /** Whether the clock may draw at all (a terminal that takes escape sequences). */
    private readonly isOn: boolean,
    /** Whether the cursor is at the start of an empty line, where the clock may go. */
    private readonly isLineFree: () => boolean,
    /** The lines to draw under a running call's clock, each narrower than `columns`. */
    private readonly linesBelow: (id: string, columns: number) => string[] = () => [],
  ) {}

  start(id: string, summary: string): void {
    if (!this.isOn) return;
    this.running.set(id, { summary, startedAt: Date.now() });
    if (this.timer) return;
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref();
  }

  end(id: string): void {
    this.running.delete(id);
    if (this.running.size === 0) this.stop();
  }

  /** No tool runs on (the run ended). */
  stop(): void {
    this.hide();
    this.running.clear();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Takes the clock's line back before something is written there; it returns at the next tick. */
  hide(): void {
    if (!this.isDrawn) return;
    this.stream.write(this.eraseSequence());
    this.isDrawn = false;
    this.drawnBelow = 0;
  }

  /** Call `id` printed more: redrawn in place now if it is the call shown (else at the next tick). */
  redraw(id: string): void {
    const [oldest] = this.running.keys();
    if (this.isDrawn && oldest === id) this.draw();
  }

  /** A question takes the terminal: no drawing until `resume`. */
  pause(): void {
    this.hide();
    this.isPaused = true;
  }

  /** The renderer wrote again (any question is over). */
  resume(): void {
    this.isPaused = false;
  }

  /** Takes the clock's line and the lines under it back, line by line (nothing else on the screen is touched). */
  private eraseSequence(): string {
    return `\r\x1b[2K${"\x1b[1A\x1b[2K".repeat(this.drawnBelow)}`;
  }

  private draw(): void {
    const [oldestId] = this.running.keys();
    const [oldest, ...others] = this.running.values();
    if (!oldest || this.isPaused || (!this.isDrawn && !this.isLineFree())) return;
    const elapsed = Date.now() - oldest.startedAt;
    const time = ` … ${elapsed < 60_000 ? `${Math.floor(elapsed / 1000)}s` : formatDuration(elapsed)}${others.length > 0 ? ` (+${others.length} more)` : ""}`;
    // Cut to the width: a wrapped line could not be taken back with one erase.
    const columns = this.stream.columns || DEFAULT_COLUMNS;
    const label = fitWidth(oldest.summary.split("\n")[0], columns - time.length);
    const below = this.linesBelow(oldestId, columns);
    const lines = [label + time, ...below].map((line) => this.colors.dim(line)).join("\n");
    // Up to the clock's row, cleared from there down (the chat's input line below too, put back
    // after), and drawn: in place, in one write, without a flicker.
    this.stream.write(`${"\x1b[1A".repeat(this.drawnBelow)}\r\x1b[J${lines}`);
    this.drawnBelow = below.length;
    this.isDrawn = true;
    redrawBelow(this.stream); // the chat's input line, which the lines under the clock may have taken
  }
}
