// Keys typed while a turn runs and nothing is asked. A line entered then is queued: a message goes
// to the agent at its next step boundary, a slash command waits for the turn's end (it is for the
// chat, not the model). Text typed and not entered becomes the start of the next prompt.
import { previousBoundary } from "./graphemes.ts";

/** A line entered while the agent worked, as queued. */
export interface QueuedLine {
  text: string;
  isCommand: boolean;
}

/** The next chat prompt's starting input, and whether it was queued (sent at once unless the turn was interrupted). */
export interface PromptStart {
  text: string;
  isQueued: boolean;
}

export class TypeAhead {
  /** Typed, not yet entered. */
  private typed = "";
  /** Messages entered, waiting for the next step boundary. */
  private messages: string[] = [];
  /** Slash commands entered, waiting for the turn's end. */
  private commands: string[] = [];

  append(text: string): void {
    this.typed += text;
  }

  /** Backspace: the last character as seen (a whole emoji), never half of one. */
  eraseLast(): void {
    this.typed = this.typed.slice(0, previousBoundary(this.typed, this.typed.length));
  }

  /** Enter: the typed line is queued, as a message or a command; nothing when it is blank. */
  enter(isCommand: (text: string) => boolean): QueuedLine | undefined {
    const text = this.typed.trim();
    this.typed = "";
    if (!text) return undefined;
    const line = { text, isCommand: isCommand(text) };
    (line.isCommand ? this.commands : this.messages).push(text);
    return line;
  }

  /** The queued messages, for the loop's next step; they are gone from the queue. */
  takeMessages(): string[] {
    const messages = this.messages;
    this.messages = [];
    return messages;
  }

  /**
   * What the next chat prompt starts with: the queued messages, joined; else the first queued
   * command alone (the rest wait for the prompts after it); else what was typed. Text typed and
   * not entered always waits for the prompt after the queued lines: it is never dropped.
   */
  takeForPrompt(): PromptStart {
    const command = this.messages.length === 0 ? this.commands.shift() : undefined;
    const queued = command ?? this.messages.join("\n\n");
    if (command === undefined) this.messages = [];
    if (queued) return { text: queued, isQueued: true };
    const typed = this.typed;
    this.typed = "";
    return { text: typed, isQueued: false };
  }
}
