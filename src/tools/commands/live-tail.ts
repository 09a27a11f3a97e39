// The last lines of a running command's output, for the person watching it: sent as `tool_output`
// events (core/event-schema.ts) while it runs. Bounded, so a command printing a flood costs next
// to nothing: while it prints, only the last WINDOW_BYTES are kept (no decoding, no scanning);
// at most every LIVE_INTERVAL_MS that window is decoded and redacted, and an event goes out when
// the lines changed. Secrets are redacted here, before the lines leave the tool layer, with the
// stream redactor the spill file uses: the window holds the recent output whole, so a key the
// command printed in two pieces is whole in it, and a key still being printed at its end (or cut
// where it starts) is held back rather than shown in part.
import { StringDecoder } from "node:string_decoder";
import { StreamRedactor } from "../../core/stream-redactor.ts";
import { wellFormed } from "../../shared/well-formed.ts";
import { cleanOutput } from "./bounded-capture.ts";

/** How many of the last lines an event carries. */
export const LIVE_LINES = 5;
/** Characters kept of each line (the terminal cuts them to its width; this bounds the event). */
export const LIVE_LINE_CHARS = 300;
/** Most often an event goes out per call. A quarter second reads as live and costs four redraws a second. */
export const LIVE_INTERVAL_MS = 250;
/** The end of the output kept: far more than five lines need, and small enough to redact four times a second. */
const WINDOW_BYTES = 8 * 1024;

export class LiveTail {
  /** The end of the output as it came, at most about WINDOW_BYTES. */
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  /** The kept bytes do not begin at the start of the output (older output was let go). */
  private isCut = false;
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = "";
  private isStopped = false;

  constructor(
    private readonly send: (lines: string[], bytes: number) => void,
    private readonly secrets?: readonly string[],
  ) {}

  add(chunk: Buffer): void {
    if (this.isStopped) return;
    this.bytes += chunk.length;
    this.chunks.push(chunk.length > WINDOW_BYTES ? chunk.subarray(chunk.length - WINDOW_BYTES) : chunk);
    this.keptBytes += this.chunks[this.chunks.length - 1].length;
    this.isCut ||= chunk.length > WINDOW_BYTES;
    while (this.keptBytes - this.chunks[0].length >= WINDOW_BYTES) {
      this.keptBytes -= (this.chunks.shift() as Buffer).length;
      this.isCut = true;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.tick(), LIVE_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** The command ended: nothing more is sent (its result follows). */
  stop(): void {
    this.isStopped = true;
    clearTimeout(this.timer);
  }

  /** The last lines as they stand on a terminal: redacted, codes removed, carriage-return redraws at their final state. */
  lines(): string[] {
    // Not flushed: what could still be the start of a key stays held back until more output says.
    let text = new StreamRedactor(this.secrets).push(new StringDecoder("utf8").write(Buffer.concat(this.chunks)));
    if (this.isCut) {
      // The first line may be the end of a longer one, or of a key cut where the window starts: left out.
      const newline = text.indexOf("\n");
      text = newline === -1 ? `…${text.slice(-LIVE_LINE_CHARS)}` : text.slice(newline + 1);
    }
    return cleanOutput(text)
      .split("\n")
      .slice(-LIVE_LINES)
      .map((line) => wellFormed(line.slice(0, LIVE_LINE_CHARS))); // a cut in a surrogate pair is not sent
  }

  private tick(): void {
    this.timer = undefined;
    if (this.isStopped) return;
    const lines = this.lines();
    const key = lines.join("\n");
    if (key === "" || key === this.lastSent) return;
    this.lastSent = key;
    this.send(lines, this.bytes);
  }
}
