// The chat's own line editor on a raw-mode terminal: multi-line input (bracketed paste, Alt-Enter,
// a trailing backslash), history with up/down and Ctrl-R, Tab completion, and keys typed while a
// turn runs: Esc or Ctrl-C interrupts it, and a line entered then is queued for the agent.
// Used when stdin and stdout are terminals and TERM is not dumb; chat.ts falls back to node:readline.
// This file is the terminal part: it reads keys and draws. What the keys do to the text is
// edit-buffer.ts, the history and its search input-history.ts, the queue of a running turn
// type-ahead.ts, and the drawing's escape sequences draw-input.ts.
import { assertNever } from "../core/messages.ts";
import type { Palette } from "./colors.ts";
import { applyCompletion, completeInput } from "./completion.ts";
import { type InputView, drawInput, fitsOneRowAtBoth } from "./draw-input.ts";
import {
  applyEditKey,
  bufferWith,
  type EditBuffer,
  insertAtCursor,
  isOnFirstLine,
  isOnLastLine,
  moveVertically,
} from "./edit-buffer.ts";
import { HistorySearch, InputHistory } from "./input-history.ts";
import { KeyParser, type Key } from "./keys.ts";
import { isSlashCommand } from "./slash-commands.ts";
import { TypeAhead } from "./type-ahead.ts";

/** An Enter that ends a burst of input waits this long: more input means it was a pasted newline. */
const PASTE_SETTLE_MS = 40;
/** Completion candidates printed under the prompt at most. */
const MAX_LISTED_CANDIDATES = 60;
const ENABLE_BRACKETED_PASTE = "\x1b[?2004h";
const DISABLE_BRACKETED_PASTE = "\x1b[?2004l";
const EMPTY_BUFFER = bufferWith("");

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

/** A raw-mode line editor: the LineReader (line-reader.ts) on a real terminal. */
export class LineEditor {
  onInterrupt: (() => void) | undefined;
  beforeQuestion: (() => void) | undefined;
  private readonly parser = new KeyParser();
  private readonly history: InputHistory;
  private readonly typeAhead = new TypeAhead();
  private buffer: EditBuffer = EMPTY_BUFFER;
  private active: ActiveQuestion | undefined;
  private search: HistorySearch | undefined;
  /** Rows between the first row of the input and the terminal cursor, as last drawn. */
  private cursorRow = 0;
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
    this.history = new InputHistory(options.history ?? []);
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
      this.buffer = EMPTY_BUFFER;
      if (isChatPrompt) {
        const start = this.typeAhead.takeForPrompt();
        this.buffer = bufferWith(start.text);
        // Lines queued during a turn that ended on its own are sent now; after an interrupt they
        // wait in the input, so Enter sends them (Esc then Enter = send at once).
        if (start.isQueued && !this.wasInterrupted) return void this.submit();
        this.wasInterrupted = false;
      }
      this.cursorRow = 0;
      if (signal?.aborted) return this.finish(undefined);
      this.render();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Lines entered while the agent worked; the loop takes them at its next step boundary. */
  takeQueuedMessages = (): string[] => this.typeAhead.takeMessages();

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
    if (this.search) return this.handleSearchKey(this.search, key);
    switch (key.name) {
      case "text":
      case "paste":
        return this.insert(key.text.replace(/\r\n?/g, "\n"));
      case "newline":
        return this.insert("\n");
      case "enter":
        return this.enter();
      case "escape":
        if (this.onInterrupt) this.interrupt();
        return;
      case "ctrl-c":
        return this.ctrlC();
      case "ctrl-d":
        if (this.buffer.text === "" && this.active.isChatPrompt) return this.close();
        return this.show(applyEditKey(this.buffer, "delete"));
      case "backspace":
      case "delete":
      case "word-backspace":
      case "ctrl-w":
      case "ctrl-u":
      case "ctrl-k":
      case "left":
      case "right":
      case "home":
      case "ctrl-a":
      case "end":
      case "ctrl-e":
      case "word-left":
      case "word-right":
        return this.show(applyEditKey(this.buffer, key.name));
      case "up":
        return isOnFirstLine(this.buffer) ? this.recall(-1) : this.show(moveVertically(this.buffer, -1));
      case "down":
        return isOnLastLine(this.buffer) ? this.recall(1) : this.show(moveVertically(this.buffer, 1));
      case "tab":
        return this.complete();
      case "ctrl-r":
        if (!this.active.isChatPrompt) return;
        this.search = new HistorySearch(this.history, this.buffer.text);
        return this.render();
      case "ctrl-l":
        this.options.stdout.write("\x1b[2J\x1b[H");
        this.cursorRow = 0;
        return this.render();
      case "ctrl-g":
        return;
      default:
        return assertNever(key);
    }
  }

  /** Enter: a trailing backslash continues the input on a new line; an empty one sends nothing. */
  private enter(): void {
    const { text, cursor } = this.buffer;
    if (text.endsWith("\\") && cursor === text.length) return this.show(bufferWith(`${text.slice(0, -1)}\n`));
    if (text.trim() === "") return this.enterOnEmpty();
    this.submit();
  }

  private ctrlC(): void {
    if (this.onInterrupt) return this.interrupt();
    if (this.buffer.text !== "") return this.show(EMPTY_BUFFER);
    if (this.isQuitArmed) return this.close();
    this.isQuitArmed = true;
    this.note("press Ctrl-C again to quit (or Ctrl-D, or /exit)");
  }

  /** Keys while a turn runs and nothing is asked: Esc/Ctrl-C interrupt, a line is queued. */
  private handleBusyKey(key: Key): void {
    switch (key.name) {
      case "text":
      case "paste":
        return this.typeAhead.append(key.text.replace(/\r\n?/g, "\n"));
      case "newline":
        return this.typeAhead.append("\n");
      case "backspace":
        return this.typeAhead.eraseLast();
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
    const line = this.typeAhead.enter(isSlashCommand);
    if (!line) return;
    this.history.add(line.text);
    const preview = line.text.split("\n")[0].slice(0, 40);
    this.note(
      line.isCommand
        ? `queued: ${preview} (runs when the agent is done)`
        : `queued: ${preview} (sent after the running step; Esc then Enter sends it now)`,
    );
  }

  /** A dim line above the input (or on its own while the agent works); the input is drawn again below it. */
  private note(text: string): void {
    if (this.active) this.leaveInput();
    this.options.stdout.write(`\r\x1b[2K${this.options.colors.dim(text)}\r\n`);
    this.cursorRow = 0;
    this.render();
  }

  private handleSearchKey(search: HistorySearch, key: Key): void {
    switch (key.name) {
      case "text":
        search.type(key.text);
        return this.render();
      case "backspace":
        search.erase();
        return this.render();
      case "ctrl-r":
        search.older();
        return this.render();
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        this.search = undefined;
        return this.show(bufferWith(search.original));
      default:
        // Any other key takes the match into the input; Enter only takes it, so it can be edited first.
        this.search = undefined;
        this.show(bufferWith(search.result));
        if (key.name !== "enter") this.handleKey(key);
    }
  }

  private interrupt(): void {
    this.wasInterrupted = true;
    this.onInterrupt?.();
  }

  private submit(): void {
    const line = this.buffer.text;
    if (this.active?.isChatPrompt) this.history.add(line);
    this.leaveInput();
    this.cursorRow = 0;
    this.finish(line);
  }

  private finish(line: string | undefined): void {
    const active = this.active;
    if (!active) return;
    if (line === undefined) this.options.stdout.write("\r\n");
    this.active = undefined;
    this.search = undefined;
    this.buffer = EMPTY_BUFFER;
    active.resolve(line);
  }

  private recall(step: -1 | 1): void {
    const text = this.history.recall(step, this.buffer.text);
    if (text !== undefined) this.show(bufferWith(text));
  }

  private complete(): void {
    const completion = completeInput(this.buffer.text, this.buffer.cursor, this.options.cwd, this.options.commands);
    if (!completion || completion.candidates.length === 0) return;
    const completed = applyCompletion(this.buffer, completion);
    if (completed) return this.show(completed);
    // Nothing to add: list the choices under the input, then draw the input again below them.
    const shown = completion.candidates.slice(0, MAX_LISTED_CANDIDATES);
    const more = completion.candidates.length - shown.length;
    const buffer = this.buffer;
    this.leaveInput();
    this.options.stdout.write(
      `${this.options.colors.dim(shown.join("  ") + (more > 0 ? `  … ${more} more` : ""))}\r\n`,
    );
    this.cursorRow = 0;
    this.show(buffer);
  }

  private insert(text: string): void {
    this.show(insertAtCursor(this.buffer, text));
  }

  /** The input becomes `buffer`, drawn. */
  private show(buffer: EditBuffer): void {
    this.buffer = buffer;
    this.render();
  }

  /** Puts the terminal cursor after the input's last character, so what is written next goes below it. */
  private leaveInput(): void {
    this.show({ text: this.buffer.text, cursor: this.buffer.text.length });
    this.options.stdout.write("\r\n");
  }

  private render(): void {
    if (!this.active) return;
    const layout = {
      columns: this.options.stdout.columns || 80,
      cursorRow: this.cursorRow,
      dim: this.options.colors.dim,
    };
    const { output, cursorRow } = drawInput(this.view(), layout);
    this.cursorRow = cursorRow;
    this.options.stdout.write(output);
  }

  /** What is drawn: the prompt and input, or the history search line. */
  private view(): InputView {
    if (!this.search) return { prefix: this.active?.prompt ?? "", ...this.buffer };
    const found = this.search.found;
    return { prefix: this.options.colors.dim(this.search.label), text: found, cursor: found.length };
  }

  /** Redraws after a resize: in place when the input fits one row at both widths, else on a new line (see fitsOneRowAtBoth). */
  private redrawAfterResize(): void {
    const columns = this.options.stdout.columns || 80;
    const previousColumns = this.drawnColumns;
    this.drawnColumns = columns;
    if (!this.active) return;
    if (!fitsOneRowAtBoth(this.view(), columns, previousColumns)) this.options.stdout.write("\r\n");
    this.cursorRow = 0;
    this.render();
  }
}
