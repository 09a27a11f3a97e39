// A command's output as the model gets it: held with bounded memory while it runs (the whole of
// it teed to a spill file once it is long), then cleaned of terminal codes and cut in the middle,
// with the spill file's path at the cut. The bash tool and background processes share it.
import { closeSync, writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { spillNote } from "../../core/output-spill.ts";
import { StreamRedactor } from "../../core/stream-redactor.ts";
import { redactText } from "../../shared/redact.ts";
import { MAX_OUTPUT_BYTES, truncateMiddle } from "../output-limit.ts";

/** Bytes kept from each end while a command runs, so a flood of output costs bounded memory. */
export const KEEP_BYTES = 4 * MAX_OUTPUT_BYTES;

/** What a capture held when it was finished. */
export interface CapturedOutput {
  output: string;
  /** Every byte the command wrote, including what was cut from `output`. */
  totalBytes: number;
  /** Where all of it was saved, when it passed MAX_OUTPUT_BYTES and a spill file could be opened. */
  spillPath?: string;
  /** Set when the spill file holds only the first this many bytes (it reached its cap). */
  spillCutAt?: number;
}

/**
 * The output for the model: cleaned, cut in the middle past the limits, and, when cut, with a
 * note at the cut naming the file that holds all of it (written while the command ran, or now
 * when it was long in lines rather than bytes and so is still whole in memory).
 */
export function outputForModel(
  captured: CapturedOutput,
  openSpill: () => SpillFile,
  secrets: readonly string[] | undefined,
): string {
  const full = cleanOutput(captured.output);
  const output = truncateMiddle(full);
  if (output === full) return output;
  const isWhole = captured.totalBytes <= 2 * KEEP_BYTES; // nothing was dropped from memory
  const path = captured.spillPath ?? (isWhole ? saveWhole(openSpill, redactText(captured.output, secrets)) : undefined);
  if (!path) return output;
  const { spillCutAt, totalBytes } = captured;
  const note =
    spillCutAt === undefined
      ? spillNote(path, totalBytes)
      : `[the first ${spillCutAt} of its ${totalBytes} bytes are saved in ${path}; read them in pages with read_file (offset, limit) or search them with grep]`;
  return withNoteAtCut(output, note);
}

/** Puts the note right after the "cut from the middle" marker, where the model notices what is missing. */
function withNoteAtCut(output: string, note: string): string {
  const marker = /\n\[\.\.\. [^\n]*cut from the middle of this output \.\.\.\]\n/.exec(output);
  if (!marker) return `${output}\n${note}`;
  const end = marker.index + marker[0].length;
  return `${output.slice(0, end)}${note}\n${output.slice(end)}`;
}

/** An open spill file (see core/output-spill.ts). */
export type SpillFile = { fd: number; path: string };

/** Writes all of an output to a new spill file; undefined when it cannot (the cut output still goes back). */
function saveWhole(openSpill: () => SpillFile, text: string): string | undefined {
  try {
    const file = openSpill();
    try {
      writeSync(file.fd, text);
    } finally {
      closeSync(file.fd);
    }
    return file.path;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the first and last `keep` bytes of a stream and counts what fell between. Once the
 * stream passes MAX_OUTPUT_BYTES (all of it still held, since `keep` is larger) it is also
 * teed to a spill file, so the whole output is on disk while memory stays bounded. What goes
 * to the file is redacted as it streams (a key split across two chunks included).
 */
export class BoundedCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private droppedBytes = 0;
  private spill: SpillFile | undefined;
  private spillFailed = false;
  private spilledBytes = 0;
  private isSpillFull = false;
  private readonly decoder = new StringDecoder("utf8");
  private readonly redactor: StreamRedactor;
  totalBytes = 0;

  constructor(
    private readonly keep: number,
    private readonly openSpill?: () => SpillFile,
    secrets?: readonly string[],
    /** Most bytes the spill file takes (a process with no time limit could fill the disk); the rest is left out of it. */
    private readonly maxSpillBytes = Number.POSITIVE_INFINITY,
  ) {
    this.redactor = new StreamRedactor(secrets);
  }

  add(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    this.teeToSpill(chunk);
    if (this.headBytes < this.keep) {
      const take = chunk.subarray(0, this.keep - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.keep) {
      const dropped = this.tail.shift() as Buffer;
      this.tailBytes -= dropped.length;
      this.droppedBytes += dropped.length;
    }
  }

  /** Everything held, with the spill file closed: nothing more is added after this. */
  finish(): CapturedOutput {
    const spillPath = this.closeSpill();
    const spillCutAt = spillPath && this.isSpillFull ? this.spilledBytes : undefined;
    return { output: this.text(), totalBytes: this.totalBytes, spillPath, ...(spillCutAt ? { spillCutAt } : {}) };
  }

  /** Closes the spill file, if one was opened, and returns its path. */
  private closeSpill(): string | undefined {
    if (!this.spill) return undefined;
    try {
      writeSync(this.spill.fd, this.redactor.push(this.decoder.end()) + this.redactor.flush());
    } catch {
      // a full disk costs the file's last bytes, never the command's result
    }
    closeSync(this.spill.fd);
    const { path } = this.spill;
    this.spill = undefined;
    this.spillFailed = true; // nothing more goes to a closed file
    return path;
  }

  private teeToSpill(chunk: Buffer): void {
    if (!this.openSpill || this.spillFailed || this.isSpillFull) return;
    try {
      if (!this.spill) {
        if (this.totalBytes <= MAX_OUTPUT_BYTES) return;
        this.spill = this.openSpill();
        for (const held of [...this.head, ...this.tail]) this.writeSpill(held);
      }
      this.writeSpill(chunk);
    } catch {
      // A full disk or an unwritable folder costs the spill file, never the command's result.
      if (this.spill) closeSync(this.spill.fd);
      this.spill = undefined;
      this.spillFailed = true;
    }
  }

  private writeSpill(chunk: Buffer): void {
    if (this.spilledBytes + chunk.length > this.maxSpillBytes) {
      chunk = chunk.subarray(0, this.maxSpillBytes - this.spilledBytes);
      this.isSpillFull = true;
    }
    this.spilledBytes += chunk.length;
    const text = this.redactor.push(this.decoder.write(chunk));
    if (text) writeSync((this.spill as SpillFile).fd, text);
  }

  /** Invalid UTF-8 becomes U+FFFD rather than breaking the message. */
  private text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (this.droppedBytes === 0) return head + tail;
    return `${head}\n[... ${this.droppedBytes} bytes cut from the middle of this output ...]\n${tail}`;
  }
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Strips colour codes and keeps only the final state of lines redrawn with carriage returns. */
export function cleanOutput(text: string): string {
  return text
    .replace(ANSI, "")
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      const cut = trimmed.lastIndexOf("\r");
      return cut === -1 ? trimmed : trimmed.slice(cut + 1);
    })
    .join("\n")
    .replace(/\n+$/, "");
}
