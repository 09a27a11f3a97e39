// What a key does at a question or the chat prompt, as plain data: the input (edit-buffer.ts), the
// history and its Ctrl-R search (input-history.ts), Tab completion (completion.ts) and the
// two-step Ctrl-C quit. No terminal here: line-editor.ts feeds it keys, draws the input and
// carries out the action each key returns.
import { assertNever } from "../../core/messages.ts";
import { applyCompletion, completeInput } from "./completion.ts";
import type { InputView } from "./draw-input.ts";
import {
  applyEditKey,
  bufferWith,
  type EditBuffer,
  insertAtCursor,
  isOnFirstLine,
  isOnLastLine,
  moveVertically,
} from "./edit-buffer.ts";
import { HistorySearch, type InputHistory } from "./input-history.ts";
import type { Key } from "./keys.ts";

const EMPTY_BUFFER = bufferWith("");

/** What the terminal does after a key, besides keeping the input as the key left it. */
export type PromptAction =
  /**
   * The input (or the search line) may have changed: draw it. `next`: the key that ended a Ctrl-R
   * search by taking its match into the input; it is pressed again there once that is drawn.
   */
  | { type: "draw"; next?: Key }
  /** Nothing to draw or do. */
  | { type: "none" }
  /** Enter: the input is sent. */
  | { type: "submit" }
  /** Enter on an empty input at a question: text typed before it appeared is queued (that Enter was meant for it). */
  | { type: "queue-type-ahead" }
  /** Esc or Ctrl-C while a turn runs. */
  | { type: "interrupt" }
  /** Ctrl-D at the empty chat prompt, or a second Ctrl-C there. */
  | { type: "close" }
  /** A dim line above the input. */
  | { type: "note"; text: string }
  /** Tab with nothing to add: the choices are listed under the input. */
  | { type: "list"; candidates: string[] }
  /** Ctrl-L. */
  | { type: "clear-screen" };

/** Where the input is asked, as a key's meaning depends on it. */
export interface PromptPlace {
  /** The chat prompt, not a question asked during a turn: Ctrl-D and Ctrl-C quit there, Ctrl-R searches. */
  isChatPrompt: boolean;
  /** A turn runs: Esc and Ctrl-C interrupt it. */
  isTurnRunning: boolean;
}

/** Tab completion's sources, and what Shift-Tab does. */
export interface CompletionSources {
  /** Where `@path` completion looks. */
  cwd: string;
  /** Slash commands offered by Tab. */
  commands: readonly string[];
  /** Shift-Tab at the chat prompt: switches to the next approval mode and says which (ask → edits → plan). */
  cycleMode?(): string;
}

export class PromptState {
  /** The text being edited and the cursor in it. */
  buffer: EditBuffer = EMPTY_BUFFER;
  /** The Ctrl-R search in progress, drawn instead of the input. */
  private search: HistorySearch | undefined;
  /** Ctrl-C was pressed at the empty prompt: a second one quits. */
  private isQuitArmed = false;

  constructor(
    readonly history: InputHistory,
    private readonly sources: CompletionSources,
  ) {}

  /** A new question: the input starts as `text`, no search. */
  begin(text = ""): void {
    this.buffer = bufferWith(text);
    this.search = undefined;
  }

  /** `text` typed at the cursor. */
  insert(text: string): void {
    this.buffer = insertAtCursor(this.buffer, text);
  }

  /** The input after `key`, and what the terminal does then. */
  press(key: Key, place: PromptPlace): PromptAction {
    if (key.name !== "ctrl-c") this.isQuitArmed = false;
    if (this.search) return this.pressInSearch(this.search, key);
    switch (key.name) {
      case "text":
      case "paste":
        return this.show(insertAtCursor(this.buffer, key.text.replace(/\r\n?/g, "\n")));
      case "newline":
        return this.show(insertAtCursor(this.buffer, "\n"));
      case "enter":
        return this.enter(place);
      case "escape":
        return place.isTurnRunning ? { type: "interrupt" } : { type: "none" };
      case "ctrl-c":
        return this.ctrlC(place);
      case "ctrl-d":
        if (this.buffer.text === "" && place.isChatPrompt) return { type: "close" };
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
      case "shift-tab": {
        const said = place.isChatPrompt ? this.sources.cycleMode?.() : undefined;
        return said === undefined ? { type: "none" } : { type: "note", text: said };
      }
      case "ctrl-r":
        if (!place.isChatPrompt) return { type: "none" };
        this.search = new HistorySearch(this.history, this.buffer.text);
        return { type: "draw" };
      case "ctrl-l":
        return { type: "clear-screen" };
      case "ctrl-g":
        return { type: "none" };
      default:
        return assertNever(key);
    }
  }

  /** What is drawn after `prompt`: the input, or the history search line (its label dimmed by `dim`). */
  view(prompt: string, dim: (text: string) => string): InputView {
    if (!this.search) return { prefix: prompt, ...this.buffer };
    const found = this.search.found;
    return { prefix: dim(this.search.label), text: found, cursor: found.length };
  }

  /** Enter: a trailing backslash continues the input on a new line; an empty one sends nothing. */
  private enter(place: PromptPlace): PromptAction {
    const { text, cursor } = this.buffer;
    if (text.endsWith("\\") && cursor === text.length) return this.show(bufferWith(`${text.slice(0, -1)}\n`));
    if (text.trim() !== "") return { type: "submit" };
    return place.isChatPrompt ? { type: "none" } : { type: "queue-type-ahead" };
  }

  private ctrlC(place: PromptPlace): PromptAction {
    if (place.isTurnRunning) return { type: "interrupt" };
    if (this.buffer.text !== "") return this.show(EMPTY_BUFFER);
    if (this.isQuitArmed) return { type: "close" };
    this.isQuitArmed = true;
    return { type: "note", text: "press Ctrl-C again to quit (or Ctrl-D, or /exit)" };
  }

  private pressInSearch(search: HistorySearch, key: Key): PromptAction {
    switch (key.name) {
      case "text":
        search.type(key.text);
        return { type: "draw" };
      case "backspace":
        search.erase();
        return { type: "draw" };
      case "ctrl-r":
        search.older();
        return { type: "draw" };
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        this.search = undefined;
        return this.show(bufferWith(search.original));
      default:
        // Any other key takes the match into the input; Enter only takes it, so it can be edited first.
        this.search = undefined;
        this.buffer = bufferWith(search.result);
        return key.name === "enter" ? { type: "draw" } : { type: "draw", next: key };
    }
  }

  private recall(step: -1 | 1): PromptAction {
    const text = this.history.recall(step, this.buffer.text);
    return text === undefined ? { type: "none" } : this.show(bufferWith(text));
  }

  private complete(): PromptAction {
    const { text, cursor } = this.buffer;
    const completion = completeInput(text, cursor, this.sources.cwd, this.sources.commands);
    if (!completion || completion.candidates.length === 0) return { type: "none" };
    const completed = applyCompletion(this.buffer, completion);
    return completed ? this.show(completed) : { type: "list", candidates: completion.candidates };
  }

  private show(buffer: EditBuffer): PromptAction {
    this.buffer = buffer;
    return { type: "draw" };
  }
}
