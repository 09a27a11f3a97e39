// The chat's own line editor on a raw-mode terminal: multi-line input (bracketed paste, Alt-Enter,
// a trailing backslash), history with up/down and Ctrl-R, Tab completion, and keys typed while a
// turn runs: Esc or Ctrl-C interrupts it, and a line entered then is queued for the agent.
// Used when stdin and stdout are terminals and TERM is not dumb; chat.ts falls back to node:readline.
import type { Palette } from "./colors.ts";
import { commonPrefix, completeInput } from "./completion.ts";
import { KeyParser, type Key } from "./keys.ts";
import { isSlashCommand } from "./slash-commands.ts";
import { visibleWidth } from "./text-width.ts";

/** Entries kept for the arrows and Ctrl-R. */
export const HISTORY_SIZE = 1000;
/** An Enter that ends a burst of input waits this long: more input means it was a pasted newline. */
const PASTE_SETTLE_MS = 40;
/** Completion candidates printed under the prompt at most. */
const MAX_LISTED_CANDIDATES = 60;
const ENABLE_BRACKETED_PASTE = "\x1b[?2004h";
const DISABLE_BRACKETED_PASTE = "\x1b[?2004l";

export interface LineEditorOptions {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  colors: Palette;
  /** Earlier input, oldest first. */
  history?: string[];
  /** Where `@path` completion looks. */
  cwd: string;
  /** Slash commands offered by Tab. */
  commands: readonly string[];
}

interface ActiveQuestion {
  prompt: string;
  /** A chat prompt (not a question asked during a turn): its lines go into the history. */
  isChatPrompt: boolean;
  resolve(line: string | undefined): void;
}

interface HistorySearch {
  query: string;
  /** Index into the history of the shown match, or -1. */
  match: number;
  original: string;
}

/** A raw-mode line editor: the LineReader (line-reader.ts) on a real terminal. */
export class LineEditor {
  onInterrupt: (() => void) | undefined;
  beforeQuestion: (() => void) | undefined;
  private readonly parser = new KeyParser();
  private readonly history: string[];
  private historyIndex = 0;
  private draft = "";
  private buffer = "";
  private cursor = 0;
  private active: ActiveQuestion | undefined;
  private search: HistorySearch | undefined;
  /** Rows between the first row of the input and the terminal cursor, as last drawn. */
  private cursorRow = 0;
  /** Typed while a turn ran, not yet entered: it becomes the start of the next prompt. */
  private typeAhead = "";
  /** Lines entered while a turn ran, waiting for the next step boundary. */
  private queue: string[] = [];
  /** Slash commands entered while a turn ran: they are for the chat, not the model, so they wait for the turn's end. */
  private queuedCommands: string[] = [];
  /** Ctrl-C was pressed at the empty prompt: a second one quits. */
  private isQuitArmed = false;
  private wasInterrupted = false;
  private pendingEnter: NodeJS.Timeout | undefined;
  /** Terminal width when the input was last drawn. */
  private drawnColumns: number;
  private isClosed = false;
  private readonly onData = (chunk: string) => this.handleData(chunk);
  private readonly onResize = () => this.redrawAfterResize();
  private readonly restoreTerminal = () => this.restore();

  constructor(private readonly options: LineEditorOptions) {
    this.history = (options.history ?? []).slice(-HISTORY_SIZE);
    this.historyIndex = this.history.length;
    this.drawnColumns = options.stdout.columns || 80;
    options.stdin.setRawMode(true);
    options.stdin.setEncoding("utf8");
    options.stdin.on("data", this.onData);
    options.stdin.resume();
    options.stdout.on("resize", this.onResize);
    options.stdout.write(ENABLE_BRACKETED_PASTE);
    process.on("exit", this.restoreTerminal);
  }

  ask(question: string, signal?: AbortSignal): Promise<string | undefined> {
    if (this.isClosed) return Promise.resolve(undefined);
    this.beforeQuestion?.();
    const lastBreak = question.lastIndexOf("\n");
    if (lastBreak >= 0) this.options.stdout.write(question.slice(0, lastBreak + 1).replace(/\n/g, "\r\n"));
    const prompt = question.slice(lastBreak + 1);
    const isChatPrompt = this.onInterrupt === undefined;
    return new Promise((resolve) => {
      // The turn's signal outlives many questions: each takes its abort listener off when answered.
      const onAbort = () => this.finish(undefined);
      const settle = (line: string | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      this.active = { prompt, isChatPrompt, resolve: settle };
      this.buffer = "";
      if (isChatPrompt) {
        const command = this.queue.length === 0 ? this.queuedCommands.shift() : undefined;
        const queued = command ?? this.queue.join("\n\n");
        if (!command) this.queue = [];
        this.buffer = queued || this.typeAhead;
        if (!command) this.typeAhead = "";
        // Lines queued during a turn that ended on its own are sent now; after an interrupt they
        // wait in the input, so Enter sends them (Esc then Enter = send at once).
        if (queued && !this.wasInterrupted) return void this.submit();
        this.wasInterrupted = false;
      }
      this.cursor = this.buffer.length;
      this.cursorRow = 0;
      if (signal?.aborted) return this.finish(undefined);
      this.render();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Lines entered while the agent worked; the loop takes them at its next step boundary. */
  takeQueuedMessages = (): string[] => {
    const queued = this.queue;
    this.queue = [];
    return queued;
  };

  close(): void {
    if (this.isClosed) return;
    this.finish(undefined);
    this.isClosed = true;
    this.restore();
    this.options.stdin.off("data", this.onData);
    this.options.stdout.off("resize", this.onResize);
    process.off("exit", this.restoreTerminal);
    this.options.stdin.pause();
  }

  private restore(): void {
    if (this.options.stdin.isTTY) this.options.stdin.setRawMode(false);
    this.options.stdout.write(DISABLE_BRACKETED_PASTE);
  }

  private handleData(chunk: string): void {
    if (this.pendingEnter) {
      // More input right after a burst-ending Enter: that Enter was a pasted newline.
      clearTimeout(this.pendingEnter);
      this.pendingEnter = undefined;
      this.insert("\n");
    }
    const keys = this.parser.parse(chunk);
    for (const [index, key] of keys.entries()) {
      if (key.name === "enter" && key.isInBurst) {
        if (index < keys.length - 1) {
          this.handleKey({ name: "newline" });
          continue;
        }
        this.pendingEnter = setTimeout(() => {
          this.pendingEnter = undefined;
          this.handleKey({ name: "enter", isInBurst: false });
        }, PASTE_SETTLE_MS);
        continue;
      }
      this.handleKey(key);
    }
  }

  private handleKey(key: Key): void {
    if (!this.active) return this.handleBusyKey(key);
    if (key.name !== "ctrl-c") this.isQuitArmed = false;
    if (this.search) return this.handleSearchKey(key);
    switch (key.name) {
      case "text":
      case "paste":
        return this.insert(key.text.replace(/\r\n?/g, "\n"));
      case "newline":
        return this.insert("\n");
      case "enter":
        if (this.buffer.endsWith("\\") && this.cursor === this.buffer.length) {
          this.buffer = this.buffer.slice(0, -1);
          this.cursor--;
          return this.insert("\n");
        }
        if (this.buffer.trim() === "") return this.enterOnEmpty();
        return this.submit();
      case "escape":
        if (this.onInterrupt) this.interrupt();
        return;
      case "ctrl-c":
        if (this.onInterrupt) return this.interrupt();
        if (this.buffer !== "") return this.replaceBuffer("");
        if (this.isQuitArmed) return this.close();
        this.isQuitArmed = true;
        return this.note("press Ctrl-C again to quit (or Ctrl-D, or /exit)");
      case "ctrl-d":
        if (this.buffer === "" && this.active.isChatPrompt) return this.close();
        return this.edit(this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1), this.cursor);
      case "backspace":
        if (this.cursor === 0) return;
        return this.edit(this.buffer.slice(0, this.cursor - 1) + this.buffer.slice(this.cursor), this.cursor - 1);
      case "delete":
        return this.edit(this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1), this.cursor);
      case "word-backspace":
      case "ctrl-w": {
        const start = this.buffer.slice(0, this.cursor).search(/\S*\s*$/);
        return this.edit(this.buffer.slice(0, start) + this.buffer.slice(this.cursor), start);
      }
      case "ctrl-u":
        return this.edit(this.buffer.slice(0, this.lineStart()) + this.buffer.slice(this.cursor), this.lineStart());
      case "ctrl-k":
        return this.edit(this.buffer.slice(0, this.cursor) + this.buffer.slice(this.lineEnd()), this.cursor);
      case "left":
        return this.moveTo(Math.max(0, this.cursor - 1));
      case "right":
        return this.moveTo(Math.min(this.buffer.length, this.cursor + 1));
      case "home":
      case "ctrl-a":
        return this.moveTo(this.lineStart());
      case "end":
      case "ctrl-e":
        return this.moveTo(this.lineEnd());
      case "word-left":
        return this.moveTo(this.buffer.slice(0, this.cursor).search(/\S+\s*$|$/));
      case "word-right": {
        const next = /^\s*\S+/.exec(this.buffer.slice(this.cursor));
        return this.moveTo(this.cursor + (next ? next[0].length : 0));
      }
      case "up":
        return this.lineStart() === 0 ? this.recall(-1) : this.moveVertically(-1);
      case "down":
        return this.lineEnd() === this.buffer.length ? this.recall(1) : this.moveVertically(1);
      case "tab":
        return this.complete();
      case "ctrl-r":
        if (!this.active.isChatPrompt) return;
        this.search = { query: "", match: -1, original: this.buffer };
        return this.render();
      case "ctrl-l":
        this.options.stdout.write("\x1b[2J\x1b[H");
        this.cursorRow = 0;
        return this.render();
      case "ctrl-g":
        return;
      default: {
        const unhandled: never = key;
        return unhandled;
      }
    }
  }

  /** Keys while a turn runs and nothing is asked: Esc/Ctrl-C interrupt, a line is queued. */
  private handleBusyKey(key: Key): void {
    switch (key.name) {
      case "text":
      case "paste":
        this.typeAhead += key.text.replace(/\r\n?/g, "\n");
        return;
      case "newline":
        this.typeAhead += "\n";
        return;
      case "backspace":
        this.typeAhead = this.typeAhead.slice(0, -1);
        return;
      case "enter":
        return this.queueTypeAhead();
      case "escape":
      case "ctrl-c":
        return this.interrupt();
      default:
        return; // editing keys have nothing to edit while the agent works
    }
  }

  /** Enter with nothing typed: nothing to send. At a question, text typed before it appeared is queued (that Enter was meant for it). */
  private enterOnEmpty(): void {
    if (!this.active?.isChatPrompt) this.queueTypeAhead();
  }

  /** A line typed while the agent works: a message for its next step, or a slash command for when it is done. */
  private queueTypeAhead(): void {
    const text = this.typeAhead.trim();
    this.typeAhead = "";
    if (!text) return;
    this.addToHistory(text);
    const preview = text.split("\n")[0].slice(0, 40);
    if (isSlashCommand(text)) {
      this.queuedCommands.push(text);
      return this.note(`queued: ${preview} (runs when the agent is done)`);
    }
    this.queue.push(text);
    this.note(`queued: ${preview} (sent after the running step; Esc then Enter sends it now)`);
  }

  /** A dim line above the input (or on its own while the agent works); the input is drawn again below it. */
  private note(text: string): void {
    if (this.active) {
      this.moveTo(this.buffer.length);
      this.options.stdout.write("\r\n");
    }
    this.options.stdout.write(`\r\x1b[2K${this.options.colors.dim(text)}\r\n`);
    this.cursorRow = 0;
    this.render();
  }

  private handleSearchKey(key: Key): void {
    const search = this.search as HistorySearch;
    switch (key.name) {
      case "text":
        search.query += key.text;
        search.match = this.findInHistory(search.query, this.history.length - 1);
        return this.render();
      case "backspace":
        search.query = search.query.slice(0, -1);
        search.match = this.findInHistory(search.query, this.history.length - 1);
        return this.render();
      case "ctrl-r":
        if (search.match > 0) {
          const older = this.findInHistory(search.query, search.match - 1);
          if (older >= 0) search.match = older;
        }
        return this.render();
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        this.search = undefined;
        return this.replaceBuffer(search.original);
      default:
        // Any other key takes the match into the input; Enter only takes it, so it can be edited first.
        this.search = undefined;
        this.replaceBuffer(search.match >= 0 ? this.history[search.match] : search.original);
        if (key.name !== "enter") this.handleKey(key);
    }
  }

  private findInHistory(query: string, from: number): number {
    if (!query) return -1;
    for (let i = from; i >= 0; i--) if (this.history[i].includes(query)) return i;
    return -1;
  }

  private interrupt(): void {
    this.wasInterrupted = true;
    this.onInterrupt?.();
  }

  private submit(): void {
    const line = this.buffer;
    if (this.active?.isChatPrompt) this.addToHistory(line);
    this.moveTo(this.buffer.length);
    this.options.stdout.write("\r\n");
    this.cursorRow = 0;
    this.finish(line);
  }

  private finish(line: string | undefined): void {
    const active = this.active;
    if (!active) return;
    if (line === undefined) this.options.stdout.write("\r\n");
    this.active = undefined;
    this.search = undefined;
    this.buffer = "";
    this.cursor = 0;
    active.resolve(line);
  }

  private addToHistory(line: string): void {
    if (line.trim() && this.history.at(-1) !== line) this.history.push(line);
    if (this.history.length > HISTORY_SIZE) this.history.shift();
    this.historyIndex = this.history.length;
    this.draft = "";
  }

  private recall(step: -1 | 1): void {
    const next = this.historyIndex + step;
    if (next < 0 || next > this.history.length) return;
    if (this.historyIndex === this.history.length) this.draft = this.buffer;
    this.historyIndex = next;
    this.replaceBuffer(next === this.history.length ? this.draft : this.history[next]);
  }

  private complete(): void {
    const completion = completeInput(this.buffer, this.cursor, this.options.cwd, this.options.commands);
    if (!completion || completion.candidates.length === 0) return;
    const typed = this.buffer.slice(completion.start, this.cursor);
    const only = completion.candidates.length === 1 ? completion.candidates[0] : undefined;
    const replacement = only ? only + (completion.isFinal(only) ? " " : "") : commonPrefix(completion.candidates);
    if (replacement.length > typed.length) {
      return this.edit(
        this.buffer.slice(0, completion.start) + replacement + this.buffer.slice(this.cursor),
        completion.start + replacement.length,
      );
    }
    // Nothing to add: list the choices under the input, then draw the input again below them.
    const shown = completion.candidates.slice(0, MAX_LISTED_CANDIDATES);
    const more = completion.candidates.length - shown.length;
    const cursor = this.cursor;
    this.moveTo(this.buffer.length);
    this.options.stdout.write(
      `\r\n${this.options.colors.dim(shown.join("  ") + (more > 0 ? `  … ${more} more` : ""))}\r\n`,
    );
    this.cursorRow = 0;
    this.moveTo(cursor);
  }

  private insert(text: string): void {
    this.edit(this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor), this.cursor + text.length);
  }

  private replaceBuffer(text: string): void {
    this.edit(text, text.length);
  }

  private edit(buffer: string, cursor: number): void {
    this.buffer = buffer;
    this.cursor = cursor;
    this.render();
  }

  private moveTo(cursor: number): void {
    this.cursor = cursor;
    this.render();
  }

  private moveVertically(step: -1 | 1): void {
    const column = this.cursor - this.lineStart();
    const target = step < 0 ? this.buffer.lastIndexOf("\n", this.lineStart() - 2) + 1 : this.lineEnd() + 1;
    const targetEnd = this.buffer.indexOf("\n", target);
    this.moveTo(Math.min(target + column, targetEnd < 0 ? this.buffer.length : targetEnd));
  }

  private lineStart(): number {
    return this.buffer.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.buffer.indexOf("\n", this.cursor);
    return end < 0 ? this.buffer.length : end;
  }

  /** Draws the input from its first row down and puts the cursor in place; rows below are cleared. */
  private render(): void {
    if (!this.active) return;
    const columns = this.options.stdout.columns || 80;
    const { prefix, text, cursor } = this.view();
    const lines = text.split("\n");
    const prefixWidth = visibleWidth(prefix);
    const continuation = this.options.colors.dim(continuationFor(prefixWidth));
    const cursorLine = text.slice(0, cursor).split("\n").length - 1;
    const cursorColumn = cursor - (text.lastIndexOf("\n", cursor - 1) + 1);
    let out = `\x1b[?25l${this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : ""}\r\x1b[J`;
    let row = 0;
    let targetRow = 0;
    let targetColumn = 0;
    lines.forEach((line, index) => {
      const lead = index === 0 ? prefix : continuation;
      const leadWidth = index === 0 ? prefixWidth : visibleWidth(continuation);
      const width = leadWidth + visibleWidth(line);
      out += lead + line;
      if (index === cursorLine) {
        const before = leadWidth + visibleWidth(line.slice(0, cursorColumn));
        targetRow = row + Math.floor(before / columns);
        targetColumn = before % columns;
      }
      const isLast = index === lines.length - 1;
      // A line that exactly fills its last row leaves the cursor in the pending-wrap state: step down explicitly.
      if (!isLast || (width > 0 && width % columns === 0)) out += "\r\n";
      row += isLast ? Math.floor(width / columns) : Math.max(1, Math.ceil(width / columns));
    });
    out += row > targetRow ? `\x1b[${row - targetRow}A` : "";
    out += `\r${targetColumn > 0 ? `\x1b[${targetColumn}C` : ""}\x1b[?25h`;
    this.cursorRow = targetRow;
    this.options.stdout.write(out);
  }

  /** What is drawn: the prompt and input, or the history search line. */
  private view(): { prefix: string; text: string; cursor: number } {
    const prompt = this.active?.prompt ?? "";
    if (!this.search) return { prefix: prompt, text: this.buffer, cursor: this.cursor };
    const found = this.search.match >= 0 ? this.history[this.search.match] : "";
    const label = `(history search${this.search.query && !found ? ", no match" : ""}) '${this.search.query}': `;
    return { prefix: this.options.colors.dim(label), text: found, cursor: found.length };
  }

  /**
   * After a resize, terminals re-wrap what is on screen, each its own way (tmux does not even keep
   * the cursor on its line), so where a wrapped input now starts is unknown. An input that fits
   * one row at both widths is redrawn in place; a longer one is drawn afresh on a new line.
   */
  private redrawAfterResize(): void {
    const columns = this.options.stdout.columns || 80;
    const previousColumns = this.drawnColumns;
    this.drawnColumns = columns;
    if (!this.active) return;
    const { prefix, text } = this.view();
    const width = visibleWidth(prefix) + visibleWidth(text);
    const fitsOneRow = !text.includes("\n") && width < Math.min(columns, previousColumns);
    if (!fitsOneRow) this.options.stdout.write("\r\n");
    this.cursorRow = 0;
    this.render();
  }
}

/** The lead of the input's second and later lines, as wide as the prompt. */
function continuationFor(promptWidth: number): string {
  return `${" ".repeat(Math.max(0, promptWidth - 2))}… `;
}
