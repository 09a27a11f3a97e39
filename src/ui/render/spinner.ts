/** How often the waiting indicator redraws. */
const TICK_MS = 1000;

/**
 * A `thinking Ns` line on a TTY while the model is silent. Writes nothing when the stream
 * is not a TTY, so logs and pipes stay clean.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  /** Said after the clock (`thinking 12s · reading the prompt 512/2,140 tokens`) until the next stop. */
  private detail = "";

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly label = "thinking",
  ) {}

  start(): void {
    if (!this.stream.isTTY || this.timer) return;
    this.started = Date.now();
    this.draw();
    this.timer = setInterval(() => this.draw(), TICK_MS);
  }

  /** Redraws at once with `detail` after the clock; nothing when the spinner is not running. */
  setDetail(detail: string): void {
    if (!this.timer || detail === this.detail) return;
    this.detail = detail;
    this.draw();
  }

  stop(): void {
    this.detail = "";
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write("\r\x1b[2K");
  }

  /** Off the screen while a line is written above it; the function returned draws it again, its clock kept. */
  hide(): () => void {
    if (!this.timer) return () => {};
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write("\r\x1b[2K");
    const detail = this.detail;
    return () => {
      if (this.timer) return;
      this.detail = detail;
      this.draw();
      this.timer = setInterval(() => this.draw(), TICK_MS);
    };
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.started) / 1000);
    const detail = this.detail ? ` · ${this.detail}` : "";
    this.stream.write(`\r\x1b[2K\x1b[2m${this.label} ${seconds}s${detail}\x1b[22m`);
  }
}
