// The last lines of a running command's output, for the person watching it: sent as `tool_output`
// events (core/event-schema.ts) while it runs. Bounded three ways, so a command printing a flood
// costs next to nothing: only the end of each chunk is looked at, only the last WINDOW_CHARS are
// held, and an event goes out at most every LIVE_INTERVAL_MS, and only when the lines changed.
// Secrets are redacted here, before the lines leave the tool layer, with the same stream
// redactor the spill file uses (a key split across two chunks is held back until it is whole).
import { StringDecoder } from "node:string_decoder";
import { StreamRedactor } from "../core/stream-redactor.ts";
import { wellFormed } from "../core/well-formed.ts";
import { cleanOutput } from "./bounded-capture.ts";

/** How many of the last lines an event carries. */
export const LIVE_LINES = 5;
/** Characters kept of each line (the terminal cuts them to its width; this bounds the event). */
export const LIVE_LINE_CHARS = 300;
/** Most often an event goes out per call. A quarter second reads as live and costs four redraws a second. */
export const LIVE_INTERVAL_MS = 250;
/** The end of the output held: far more than five lines need, and small enough to redact on every change. */
const WINDOW_CHARS = 8 * 1024;

export class LiveTail {
  /** The end of the output, redacted. */
  private text = "";
  /** `text` does not begin at the start of a line (older output was let go). */
  private isCut = false;
  private decoder = new StringDecoder("utf8");
  private redactor: StreamRedactor;
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = "";
  private isStopped = false;

  constructor(
    private readonly send: (lines: string[], bytes: number) => void,
    private readonly secrets?: readonly string[],
  ) {
    this.redactor = new StreamRedactor(secrets);
  }

  add(chunk: Buffer): void {
    if (this.isStopped) return;
    this.bytes += chunk.length;
    if (chunk.length > WINDOW_CHARS) {
      // Only its end can show: start over from there (what came before can no longer be on screen).
      chunk = chunk.subarray(chunk.length - WINDOW_CHARS);
      this.decoder = new StringDecoder("utf8");
      this.redactor = new StreamRedactor(this.secrets);
      this.text = "";
      this.isCut = true;
    }
    this.text += this.redactor.push(this.decoder.write(chunk));
    if (this.text.length > WINDOW_CHARS) {
      this.text = this.text.slice(-WINDOW_CHARS);
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

  /** The last lines as they stand on a terminal: codes removed, carriage-return redraws at their final state. */
  lines(): string[] {
    let text = this.text;
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
