// The chat's own line editor on a raw-mode terminal: multi-line input (bracketed paste, Alt-Enter,
// a trailing backslash), history with up/down and Ctrl-R, Tab completion, and keys typed while a
// turn runs: Esc or Ctrl-C interrupts it, and a line entered then is queued for the agent.
// Used when stdin and stdout are terminals and TERM is not dumb; chat.ts falls back to node:readline.
// This file is the terminal part: it asks questions, carries out what keys do and draws. The keys
// come from raw-key-input.ts; what they do to the input is prompt-state.ts (over edit-buffer.ts and
// input-history.ts), the queue of a running turn type-ahead.ts, the escape sequences draw-input.ts.
import { assertNever } from "../../core/messages.ts";
import { wellFormed } from "../../shared/well-formed.ts";
import type { Palette } from "../colors.ts";
import { graphemesOf } from "../graphemes.ts";
import { isSlashCommand } from "../slash-commands.ts";
import { wrapToWidth } from "../text-width.ts";
import { drawInput, fitsOneRowAtBoth, type InputView } from "./draw-input.ts";
import { bufferWith } from "./edit-buffer.ts";
import { InputHistory } from "./input-history.ts";
import type { Key } from "./keys.ts";
import { type CompletionSources, PromptState } from "./prompt-state.ts";
import { RawKeyInput } from "./raw-key-input.ts";
import { TypeAhead } from "./type-ahead.ts";

/** Completion candidates printed under the prompt at most. */
const MAX_LISTED_CANDIDATES = 60;
/** The lead of the input while a turn runs: not `> `, so a line entered now is seen to be queued for the agent. */
const TYPE_AHEAD_PROMPT = "› ";

/** `cwd`, `commands` and `cycleMode`: what Tab completes and Shift-Tab does (prompt-state.ts). */
export interface LineEditorOptions extends CompletionSources {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  colors: Palette;
  /** Earlier input, oldest first. */
  history?: string[];
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
  beforeQuestion: (() => () => void) | undefined;
  showAbove: ((write: () => void) => void) | undefined;
  private readonly input: PromptState;
  /** What is typed while a turn runs and nothing is asked: edited as at the prompt, shown by `showTypeAhead`. */
  private readonly typed: PromptState;
  private showTypeAhead: ((view: InputView) => void) | undefined;
  private readonly keys: RawKeyInput;
  private readonly typeAhead = new TypeAhead();
  private active: ActiveQuestion | undefined;
  /** Rows between the first row of the input and the terminal cursor, as last drawn. */
  private cursorRow = 0;
  private wasInterrupted = false;
  /** Terminal width when the input was last drawn. */
  private drawnColumns: number;
  private isClosed = false;

  constructor(private readonly options: LineEditorOptions) {
    this.input = new PromptState(new InputHistory(options.history ?? []), options);
    this.typed = new PromptState(this.input.history, options);
    this.drawnColumns = options.stdout.columns || 80;
    this.keys = new RawKeyInput(options.stdin, options.stdout, {
      onKey: (key) => this.handleKey(key),
      onPastedNewline: () => {
        // Into the input the paste went to: the question's, or the one typed while a turn runs.
        if (!this.active) return this.handleBusyKey({ name: "newline" });
        this.input.insert("\n");
        this.render();
      },
      onResize: () => this.redrawAfterResize(),
    });
  }

  ask(question: string, signal?: AbortSignal): Promise<string | undefined> {
    if (this.isClosed) return Promise.resolve(undefined);
    const afterQuestion = this.beforeQuestion?.();
    const lastBreak = question.lastIndexOf("\n");
    if (lastBreak >= 0) this.options.stdout.write(question.slice(0, lastBreak + 1).replace(/\n/g, "\r\n"));
    const prompt = question.slice(lastBreak + 1);
    const isChatPrompt = this.onInterrupt === undefined;
    return new Promise((resolve) => {
      // The turn's signal outlives many questions: each takes its abort listener off when answered.
      // A chat prompt making way (for a run a served session's other client started) keeps what was typed.
      const onAbort = () => this.finish(undefined, isChatPrompt);
      const settle = (line: string | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        afterQuestion?.();
        resolve(line);
      };
      this.active = { prompt, isChatPrompt, resolve: settle };
      this.input.begin();
      if (isChatPrompt) {
        // Lines queued during a turn that ended on its own are sent now; after an interrupt they
        // wait in the input, so Enter sends them (Esc then Enter = send at once). Text typed and
        // not entered is the next prompt's start, cursor and all, once the queued lines are sent.
        const queued = this.typeAhead.takeForPrompt();
        if (queued !== undefined) {
          this.input.begin(queued);
          if (!this.wasInterrupted) return void this.submit();
        } else {
          // A line a hook refused comes back, unless something was typed meanwhile.
          const kept = this.keptLine;
          this.input.buffer =
            this.typed.buffer.text === "" && kept !== undefined ? bufferWith(kept) : this.typed.buffer;
          this.typed.begin();
        }
        this.keptLine = undefined;
        this.wasInterrupted = false;
      }
      this.cursorRow = 0;
      if (signal?.aborted) return this.finish(undefined);
      this.render();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A refused line the next chat prompt starts with (what was typed ahead meanwhile wins). */
  private keptLine: string | undefined;

  keepForNextPrompt(line: string): void {
    this.keptLine = line;
  }

  /** Lines entered while the agent worked; the loop takes them at its next step boundary. */
  takeQueuedMessages = (): string[] => this.typeAhead.takeMessages();

  /** While a turn runs: `show` gets the typed input now and after every key that changes it; the function returned stops that. */
  watchTypeAhead(show: (view: InputView) => void): () => void {
    this.showTypeAhead = show;
    show(this.typedView());
    return () => {
      if (this.showTypeAhead === show) this.showTypeAhead = undefined;
    };
  }

  close(): void {
    if (this.isClosed) return;
    this.finish(undefined);
    this.isClosed = true;
    this.keys.close();
  }

  private handleKey(key: Key): void {
    if (!this.active) return this.handleBusyKey(key);
    const place = { isChatPrompt: this.active.isChatPrompt, isTurnRunning: this.onInterrupt !== undefined };
    const action = this.input.press(key, place);
    switch (action.type) {
      case "draw":
        this.render();
        if (action.next) this.handleKey(action.next);
        return;
      case "none":
        return;
      case "submit":
        return this.submit();
      case "queue-type-ahead":
        return this.queueTypeAhead();
      case "interrupt":
        return this.interrupt();
      case "close":
        return this.close();
      case "note":
        return this.note(action.text);
      case "list":
        return this.listCandidates(action.candidates);
      case "clear-screen":
        this.options.stdout.write("\x1b[2J\x1b[H");
        this.cursorRow = 0;
        return this.render();
      default:
        return assertNever(action);
    }
  }

  /**
   * Keys while a turn runs and nothing is asked: the same editing as at a question (Esc and Ctrl-C
   * interrupt), and Enter queues the line.
   */
  private handleBusyKey(key: Key): void {
    const action = this.typed.press(key, { isChatPrompt: false, isTurnRunning: true });
    switch (action.type) {
      case "draw":
        this.showTypedAhead();
        if (action.next) this.handleBusyKey(action.next);
        return;
      case "submit":
        return this.queueTypeAhead();
      case "interrupt":
        return this.interrupt();
      case "note":
        return this.note(action.text);
      case "list":
        return this.listCandidates(action.candidates);
      case "queue-type-ahead": // Enter on an empty line: nothing to queue
      case "none":
      case "close": // never at a question
      case "clear-screen": // the turn's output is not the editor's to clear
        return;
      default:
        return assertNever(action);
    }
  }

  private typedView(): InputView {
    return this.typed.view(this.options.colors.dim(TYPE_AHEAD_PROMPT), this.options.colors.dim);
  }

  private showTypedAhead(): void {
    this.showTypeAhead?.(this.typedView());
  }

  /** A line typed while the agent works: a message for its next step, or a slash command for when it is done. */
  private queueTypeAhead(): void {
    const text = wellFormed(this.typed.buffer.text);
    this.typed.begin();
    this.showTypedAhead();
    const line = this.typeAhead.enter(text, isSlashCommand);
    if (!line) return;
    this.input.history.add(line.text);
    const preview = graphemesOf(line.text.split("\n")[0]).slice(0, 40).join("");
    this.note(
      line.isCommand
        ? `queued: ${preview} (runs when the agent is done)`
        : `queued: ${preview} (sent after the running step; Esc then Enter sends it now)`,
    );
  }

  /** What `write` writes goes where the input was; the input is drawn again below it (LineReader.sayAbove). */
  sayAbove(write: () => void): void {
    if (!this.active) return this.showAbove ? this.showAbove(write) : write();
    this.options.stdout.write(`${this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : ""}\r\x1b[J`);
    write();
    this.cursorRow = 0;
    this.render();
  }

  /** A dim line above the input (or above the turn's blocks while the agent works); the input is drawn again below it. */
  private note(text: string): void {
    const wrapped = wrapToWidth(this.options.colors.dim(text), this.options.stdout.columns || 80);
    this.sayAbove(() => this.options.stdout.write(`\r\x1b[2K${wrapped.replace(/\n/g, "\r\n")}\r\n`));
  }

  private interrupt(): void {
    this.wasInterrupted = true;
    this.onInterrupt?.();
  }

  private submit(): void {
    const line = wellFormed(this.input.buffer.text);
    if (this.active?.isChatPrompt) this.input.history.add(line);
    this.leaveInput();
    this.cursorRow = 0;
    this.finish(line);
  }

  private finish(line: string | undefined, keepTyped = false): void {
    const active = this.active;
    if (!active) return;
    if (keepTyped) this.typed.buffer = this.input.buffer;
    if (line === undefined) this.options.stdout.write("\r\n");
    this.active = undefined;
    this.input.begin();
    active.resolve(line);
  }

  /** Tab with nothing to add: the choices above the input, which is drawn again below them. */
  private listCandidates(candidates: string[]): void {
    const more = candidates.length - MAX_LISTED_CANDIDATES;
    this.note(candidates.slice(0, MAX_LISTED_CANDIDATES).join("  ") + (more > 0 ? `  … ${more} more` : ""));
  }

  /** Puts the terminal cursor after the input's last character, so what is written next goes below it. */
  private leaveInput(): void {
    this.input.buffer = bufferWith(this.input.buffer.text);
    this.render();
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
    return this.input.view(this.active?.prompt ?? "", this.options.colors.dim);
  }

  /** Redraws after a resize: in place when the input fits one row at both widths, else on a new line (see fitsOneRowAtBoth). */
  private redrawAfterResize(): void {
    const columns = this.options.stdout.columns || 80;
    const previousColumns = this.drawnColumns;
    this.drawnColumns = columns;
    if (!this.active) return this.showTypedAhead(); // laid out again at the new width
    if (!fitsOneRowAtBoth(this.view(), columns, previousColumns)) this.options.stdout.write("\r\n");
    this.cursorRow = 0;
    this.render();
  }
}
