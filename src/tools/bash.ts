import { closeSync, writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { openSpillFile, spillDirOf, spillNote } from "../core/output-spill.ts";
import { redactText } from "../core/redact.ts";
import { StreamRedactor } from "../core/stream-redactor.ts";
import { defineTool } from "../core/tool.ts";
import { runHosted } from "./command-host.ts";
import { MAX_OUTPUT_BYTES, truncateMiddle } from "./output-limit.ts";

/** Default per-command time limit; the model may ask for more, up to the cap. */
export const BASH_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** After the shell exits, how long to wait for background children still holding its pipes. */
const PIPE_DRAIN_MS = 200;
/** Bytes kept from each end while a command runs, so a flood of output costs bounded memory. */
const KEEP_BYTES = 4 * MAX_OUTPUT_BYTES;

/** Keeps pagers, prompts, colours and progress bars out of captured output. */
const QUIET_ENV: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
  TERM: "dumb",
  NO_COLOR: "1",
  PIP_PROGRESS_BAR: "off",
  npm_config_progress: "false",
  npm_config_fund: "false",
};

export const bash = defineTool({
  name: "bash",
  description:
    "Run a bash command in the working directory. No stdin. Returns stdout+stderr and the exit code; long output is cut in the middle.",
  kind: "execute",
  input: z.object({
    command: z.string().describe("The command"),
    timeout: z
      .number()
      .int()
      .positive()
      .max(BASH_MAX_TIMEOUT_MS / 1000)
      .optional()
      .describe(`Seconds before it is killed (default ${BASH_TIMEOUT_MS / 1000}, max ${BASH_MAX_TIMEOUT_MS / 1000})`),
  }),
  describe: (input) => `bash> ${input.command}`,
  async run(input, context) {
    const { cwd, signal, env, wrapCommand } = context;
    const timeoutMs = Math.min((input.timeout ?? BASH_TIMEOUT_MS / 1000) * 1000, BASH_MAX_TIMEOUT_MS);
    const openSpill = () => openSpillFile(spillDirOf(context), context.callId);
    const result = await runCommand(input.command, {
      cwd,
      env: env ?? process.env,
      timeoutMs,
      signal,
      openSpill,
      wrapCommand,
      secrets: context.secrets,
    });
    const full = cleanOutput(result.output);
    let output = truncateMiddle(full);
    if (output !== full) {
      // Cut for the model: the whole output is in the spill file (written while the command ran,
      // or now when it was long in lines rather than bytes and so is still whole in memory).
      const isWhole = result.totalBytes <= 2 * KEEP_BYTES; // nothing was dropped from memory
      const path =
        result.spillPath ?? (isWhole ? saveWhole(openSpill, redactText(result.output, context.secrets)) : undefined);
      if (path) output = withNoteAtCut(output, spillNote(path, result.totalBytes));
    }
    const status = result.notes.map((note) => `[${note}]\n`).join("") + statusOf(result, timeoutMs);
    const isError = result.timedOut || result.interrupted || result.exitCode !== 0;
    return { content: output ? `${output}\n${status}` : status, isError, summary: status };
  },
});

/** The last line of a result: how the command ended. */
function statusOf(result: CommandResult, timeoutMs: number): string {
  if (result.timedOut) return `[timed out after ${timeoutMs / 1000}s; the process tree was killed]`;
  if (result.interrupted) return "[interrupted by the user; the process tree was killed]";
  if (result.signal) return `[killed by ${result.signal}]`;
  return result.exitCode === null ? "[no exit code]" : `[exit code: ${result.exitCode}]`;
}

interface CommandResult {
  output: string;
  /** Every byte the command wrote, including what was cut from `output`. */
  totalBytes: number;
  /** Where all of it was saved, when it passed MAX_OUTPUT_BYTES and a spill file could be opened. */
  spillPath?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  /** What happened to the command helper, when the model should know (see command-host.ts). */
  notes: string[];
}

/**
 * Runs `bash -c` in its own process group, through the command helper (command-host.ts), so a
 * timeout or Ctrl-C kills everything it started. With `openSpill`, output past MAX_OUTPUT_BYTES
 * is also streamed to that file, whole. With `wrapCommand` the helper runs in the sandbox.
 */
export function runCommand(
  command: string,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal: AbortSignal;
    openSpill?: () => SpillFile;
    wrapCommand?(argv: string[], cwd: string): string[];
    secrets?: readonly string[];
  },
): Promise<CommandResult> {
  const { cwd, env, timeoutMs, signal, openSpill, wrapCommand } = options;
  return new Promise((resolve) => {
    const captured = new BoundedCapture(KEEP_BYTES, openSpill, options.secrets);
    let timedOut = false;
    let settled = false;
    let drain: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: string | null } = { code: null, signal: null };

    const finish = (lost?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      running.forget();
      const spillPath = captured.closeSpill();
      const notes = [running.notice, lost].filter((note) => note !== undefined);
      resolve({
        output: captured.text(),
        totalBytes: captured.totalBytes,
        spillPath,
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        interrupted: signal.aborted && !timedOut,
        notes,
      });
    };
    const running = runHosted(
      command,
      { cwd, env: { ...env, ...QUIET_ENV }, wrapCommand },
      {
        data: (chunk) => captured.add(chunk),
        exited: (code, exitSignal) => {
          exit = { code, signal: exitSignal };
          // Background children may still hold the pipes open: give them a moment, then stop reading.
          drain = setTimeout(finish, PIPE_DRAIN_MS);
        },
        closed: () => finish(),
        lost: (reason, didStart) => {
          if (!didStart) exit = { code: 127, signal: null };
          finish(reason);
        },
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      running.kill();
    }, timeoutMs);
    const onAbort = () => running.kill();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Puts the note right after the "cut from the middle" marker, where the model notices what is missing. */
function withNoteAtCut(output: string, note: string): string {
  const marker = /\n\[\.\.\. [^\n]*cut from the middle of this output \.\.\.\]\n/.exec(output);
  if (!marker) return `${output}\n${note}`;
  const end = marker.index + marker[0].length;
  return `${output.slice(0, end)}${note}\n${output.slice(end)}`;
}

/** An open spill file (see core/output-spill.ts). */
type SpillFile = { fd: number; path: string };

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
class BoundedCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private droppedBytes = 0;
  private spill: SpillFile | undefined;
  private spillFailed = false;
  private readonly decoder = new StringDecoder("utf8");
  private readonly redactor: StreamRedactor;
  totalBytes = 0;

  constructor(
    private readonly keep: number,
    private readonly openSpill?: () => SpillFile,
    secrets?: readonly string[],
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

  /** Closes the spill file, if one was opened, and returns its path. */
  closeSpill(): string | undefined {
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
    if (!this.openSpill || this.spillFailed) return;
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
    const text = this.redactor.push(this.decoder.write(chunk));
    if (text) writeSync((this.spill as SpillFile).fd, text);
  }

  /** Invalid UTF-8 becomes U+FFFD rather than breaking the message. */
  text(): string {
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
