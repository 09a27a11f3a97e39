// The terminal's side of the line editor's input: raw mode and bracketed paste on while it is open
// (and off again even when the process exits without closing it), bytes parsed into keys
// (keys.ts), and the one timing rule of pasting on a terminal without bracketed paste.
import { type Key, KeyParser } from "./keys.ts";

/** An Enter that ends a burst of input waits this long: more input means it was a pasted newline. */
const PASTE_SETTLE_MS = 40;
const ENABLE_BRACKETED_PASTE = "\x1b[?2004h";
const DISABLE_BRACKETED_PASTE = "\x1b[?2004l";

/** What the keys go to. */
export interface KeyHandlers {
  onKey(key: Key): void;
  /** A burst-ending Enter turned out to be a newline inside a paste: more input came right after it. */
  onPastedNewline(): void;
  /** The terminal's width changed. */
  onResize(): void;
}

export class RawKeyInput {
  private readonly parser = new KeyParser();
  private pendingEnter: NodeJS.Timeout | undefined;
  private readonly onData = (chunk: string) => this.handleData(chunk);
  private readonly onResize = () => this.handlers.onResize();
  private readonly restoreTerminal = () => this.restore();

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
    private readonly handlers: KeyHandlers,
  ) {
    stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    stdin.on("data", this.onData);
    stdin.resume();
    stdout.on("resize", this.onResize);
    stdout.write(ENABLE_BRACKETED_PASTE);
    process.on("exit", this.restoreTerminal);
  }

  /** The terminal as it was: cooked mode, no bracketed paste; no more keys. */
  close(): void {
    this.restore();
    this.stdin.off("data", this.onData);
    this.stdout.off("resize", this.onResize);
    process.off("exit", this.restoreTerminal);
    this.stdin.pause();
  }

  private restore(): void {
    if (this.stdin.isTTY) this.stdin.setRawMode(false);
    this.stdout.write(DISABLE_BRACKETED_PASTE);
  }

  private handleData(chunk: string): void {
    const keys = this.parser.parse(chunk);
    if (this.pendingEnter) {
      clearTimeout(this.pendingEnter);
      this.pendingEnter = undefined;
      // More text right after a burst-ending Enter: that Enter was a pasted newline. A control key
      // (Ctrl-C, Esc, an arrow) is no part of a paste: the Enter was pressed, then that key.
      if (keys.length === 0 || continuesPaste(keys[0])) this.handlers.onPastedNewline();
      else this.handlers.onKey({ name: "enter", isInBurst: false });
    }
    for (const [index, key] of keys.entries()) {
      if (key.name === "enter" && key.isInBurst) {
        const next = keys[index + 1];
        if (next && continuesPaste(next)) this.handlers.onKey({ name: "newline" });
        else if (next) this.handlers.onKey({ name: "enter", isInBurst: false });
        else
          this.pendingEnter = setTimeout(() => {
            this.pendingEnter = undefined;
            this.handlers.onKey({ name: "enter", isInBurst: false });
          }, PASTE_SETTLE_MS);
        continue;
      }
      this.handlers.onKey(key);
    }
  }
}

/** What a terminal without bracketed paste sends for pasted text: characters, tabs and newlines. */
function continuesPaste(key: Key): boolean {
  return key.name === "text" || key.name === "tab" || key.name === "enter";
}
