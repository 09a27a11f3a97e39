// Where the chat's lines (and approval answers) come from: our own editor on a real terminal,
// node:readline elsewhere. Both are a LineReader, which is all the chat loop knows of them.
import { createInterface, type Interface } from "node:readline";
import { paletteFor } from "../colors.ts";
import type { InputView } from "./draw-input.ts";
import { HISTORY_SIZE } from "./input-history.ts";
import { LineEditor } from "./line-editor.ts";

/** What a reader is made from: the terminal, earlier input, and what Tab completes. */
export interface LineReaderOptions {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Lines of earlier input, oldest first, for the arrows. */
  history?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  commands?: readonly string[];
  /** Shift-Tab at the chat prompt (our own editor only; /mode does the same anywhere). */
  cycleMode?(): string;
}

/** A line editor shared by the chat prompt and approval questions. */
export interface LineReader {
  ask(question: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Set while a turn runs: Ctrl-C then interrupts the turn instead of quitting. */
  onInterrupt: (() => void) | undefined;
  /**
   * Set while a turn runs: called before a question (an approval) is drawn, to clear the spinner
   * and the pinned blocks off the screen; the function it returns is called once it is answered.
   */
  beforeQuestion: (() => () => void) | undefined;
  /**
   * Set while a turn runs: how `sayAbove` writes above the turn's spinner and pinned blocks, which
   * are drawn again below what it wrote.
   */
  showAbove?: ((write: () => void) => void) | undefined;
  /**
   * Something said while the reader may hold the terminal (a setup warning that comes late, a
   * served session's note): `write` writes it above the input, which is drawn again below it; while
   * a turn runs, above its pinned blocks (`showAbove`). Without this a line written at a shown
   * prompt lands on the prompt's row, and the prompt is gone from the screen.
   */
  sayAbove(write: () => void): void;
  close(): void;
  /** Lines typed while a turn ran, for the loop's next step boundary (AgentOptions.takeQueuedMessages). */
  takeQueuedMessages?(): string[];
  /**
   * While a turn runs, `show` gets what is typed (and not yet entered) at once and after each key
   * that changes it, so the chat can draw it under the turn; the function returned stops that.
   * Readers that cannot (node:readline) leave it out.
   */
  watchTypeAhead?(show: (view: InputView) => void): () => void;
  /** The text the next chat prompt starts with: a line a UserPromptSubmit hook refused, to fix and send again. */
  keepForNextPrompt?(line: string): void;
}

/** `commands`: the slash commands Tab completes (slash-commands.ts commandNames). */
export function createLineReader(options: LineReaderOptions): LineReader {
  const env = options.env ?? process.env;
  // Our own editor on a real terminal; node:readline where escape sequences are unwelcome (TERM=dumb).
  if (options.stdin.isTTY && options.stdout.isTTY && env.TERM !== "dumb") {
    return new LineEditor({
      ...options,
      colors: paletteFor(options.stdout, env),
      cwd: options.cwd ?? process.cwd(),
      commands: options.commands ?? [],
    });
  }
  const rl: Interface = createInterface({
    input: options.stdin,
    output: options.stdout,
    terminal: Boolean(options.stdin.isTTY),
    historySize: HISTORY_SIZE,
    history: [...(options.history ?? [])].reverse(),
  } as Parameters<typeof createInterface>[0]);
  let isClosed = false;
  const waiters = new Set<(line: string | undefined) => void>();
  rl.on("close", () => {
    isClosed = true;
    for (const resolve of waiters) resolve(undefined);
    waiters.clear();
  });
  const reader: LineReader = {
    onInterrupt: undefined,
    beforeQuestion: undefined,
    ask(question, signal) {
      if (isClosed) return Promise.resolve(undefined);
      const afterQuestion = reader.beforeQuestion?.();
      return new Promise((resolve) => {
        const onAbort = () => settle(undefined);
        const settle = (line: string | undefined) => {
          waiters.delete(settle);
          signal?.removeEventListener("abort", onAbort);
          afterQuestion?.();
          resolve(line);
        };
        waiters.add(settle);
        if (signal) rl.question(question, { signal }, settle);
        else rl.question(question, settle);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    sayAbove(write) {
      const isAsking = waiters.size > 0;
      if (!isAsking) return reader.showAbove ? reader.showAbove(write) : write();
      // No escape sequences here (TERM=dumb): the question is written again after the line.
      options.stdout.write("\n");
      write();
      rl.prompt(true);
    },
    close: () => rl.close(),
  };
  let isQuitArmed = false;
  rl.on("SIGINT", () => {
    if (reader.onInterrupt) return reader.onInterrupt();
    if (rl.line === "") {
      if (isQuitArmed) return rl.close();
      isQuitArmed = true;
      options.stdout.write("\npress Ctrl-C again to quit (or Ctrl-D, or /exit)\n");
      return rl.prompt();
    }
    // Ctrl-C with text typed clears the line, as shells do.
    (rl as unknown as { line: string }).line = "";
    rl.write("\n");
  });
  rl.on("line", () => (isQuitArmed = false));
  return reader;
}
