/** How often the waiting indicator redraws. */
const TICK_MS = 1000;

/**
 * A `thinking Ns` line on a TTY while the model is silent. Writes nothing when the stream
 * is not a TTY, so logs and pipes stay clean.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;

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

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write("\r\x1b[2K");
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.started) / 1000);
    this.stream.write(`\r\x1b[2K\x1b[2m${this.label} ${seconds}s\x1b[22m`);
  }
}
