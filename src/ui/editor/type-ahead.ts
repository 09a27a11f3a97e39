// Lines entered while a turn runs and nothing is asked, queued: a message goes to the agent at its
// next step boundary, a slash command waits for the turn's end (it is for the chat, not the model).
// What is typed and not entered is the line editor's (an input of its own, drawn under the turn).

/** A line entered while the agent worked, as queued. */
export interface QueuedLine {
  text: string;
  isCommand: boolean;
}

export class TypeAhead {
  /** Messages entered, waiting for the next step boundary. */
  private messages: string[] = [];
  /** Slash commands entered, waiting for the turn's end. */
  private commands: string[] = [];

  /** Enter: the typed line is queued, as a message or a command; nothing when it is blank. */
  enter(typed: string, isCommand: (text: string) => boolean): QueuedLine | undefined {
    const text = typed.trim();
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
   * command alone (the rest wait for the prompts after it); undefined when nothing is queued (the
   * prompt starts with what was typed and not entered, which waits until then: it is never dropped).
   */
  takeForPrompt(): string | undefined {
    const command = this.messages.length === 0 ? this.commands.shift() : undefined;
    const queued = command ?? this.messages.join("\n\n");
    if (command === undefined) this.messages = [];
    return queued || undefined;
  }
}
