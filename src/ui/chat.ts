import { createInterface, type Interface } from "node:readline";
import type { AgentEvent } from "../core/events.ts";
import type { UserContent } from "../core/messages.ts";
import { expandFileMentions } from "./attachments.ts";
import { paletteFor, type Palette } from "./colors.ts";
import { LineEditor } from "./line-editor.ts";
import type { CommandOutcome } from "./slash-commands.ts";
import { SessionStatus, type StatusLineSources } from "./status-line.ts";
import { TerminalRenderer } from "./terminal-renderer.ts";
import { formatTodoBlock } from "./todo-panel.ts";
import type { TodoItem } from "../core/event-schema.ts";

/** In-session input history kept for the up/down arrows. */
const HISTORY_SIZE = 1000;

export interface ChatOptions {
  /** Runs one prompt (the session: its events come recorded and redacted). */
  run(prompt: string | UserContent, signal: AbortSignal): AsyncIterable<AgentEvent>;
  /** Attaches the images a line names (`@shot.png`, a pasted path); an error is shown and the line not sent. */
  withImages?(text: string): Promise<{ prompt: string | UserContent } | { error: string }>;
  /** `provider · model` for the header line. */
  title(): string;
  /** Where `@path` mentions are resolved. */
  cwd: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  colors: Palette;
  /** Where the status line after each turn gets the context window and prices. */
  status?: StatusLineSources;
  /** Lines of earlier input, oldest first, for the arrows. */
  history?: string[];
  /** Called with every entered line (input history is saved here). */
  onInput?(line: string): void;
  /** The plan a resumed session left: shown at the start and pinned while turns work. */
  todo?: readonly TodoItem[];
  /** Handles a slash command; returns undefined when the line is not one (it is then a prompt). */
  runCommand?(line: string): Promise<CommandOutcome> | undefined;
}

/** A line editor shared by the chat prompt and approval questions. */
export interface LineReader {
  ask(question: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Set while a turn runs: Ctrl-C then interrupts the turn instead of quitting. */
  onInterrupt: (() => void) | undefined;
  /** Set while a turn runs: called before a question (an approval) is drawn, to clear the spinner off its line. */
  beforeQuestion: (() => void) | undefined;
  close(): void;
  /** Lines typed while a turn ran, for the loop's next step boundary (AgentOptions.takeQueuedMessages). */
  takeQueuedMessages?(): string[];
}

/** `commands`: the slash commands Tab completes (slash-commands.ts commandNames). */
export function createLineReader(options: Pick<ChatOptions, "stdin" | "stdout" | "history"> & { env?: NodeJS.ProcessEnv; cwd?: string; commands?: readonly string[] }): LineReader {
  const env = options.env ?? process.env;
  // Our own editor on a real terminal; node:readline where escape sequences are unwelcome (TERM=dumb).
  if (options.stdin.isTTY && options.stdout.isTTY && env.TERM !== "dumb") {
    return new LineEditor({ ...options, colors: paletteFor(options.stdout, env), cwd: options.cwd ?? process.cwd(), commands: options.commands ?? [] });
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
      reader.beforeQuestion?.();
      return new Promise((resolve) => {
        const onAbort = () => settle(undefined);
        const settle = (line: string | undefined) => {
          waiters.delete(settle);
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        };
        waiters.add(settle);
        if (signal) rl.question(question, { signal }, settle);
        else rl.question(question, settle);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
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

/**
 * The interactive chat: read a line, run the agent on it with replies streaming, repeat.
 * `/exit`, Ctrl-D or Ctrl-C twice at the empty prompt quit (an empty line does nothing, as at a
 * shell prompt); Ctrl-C interrupts a running turn and keeps the session.
 */
export async function runChat(options: ChatOptions, reader: LineReader): Promise<number> {
  const { colors } = options;
  const renderer = new TerminalRenderer({ stdout: options.stdout, stderr: options.stderr, env: options.env, replies: "stream", showTrace: true, todo: options.todo });
  options.stderr.write(colors.dim(`harness · ${options.title()} · /exit or Ctrl-D quits · /help\n`));
  if (options.todo?.length) options.stderr.write(`${formatTodoBlock(options.todo, colors, options.stderr.columns || 80).join("\n")}\n`);
  const status = options.status ? new SessionStatus(options.status) : undefined;
  while (true) {
    const line = await reader.ask(colors.bold("> "));
    if (line === undefined) break;
    if (line.trim() === "") continue;
    options.onInput?.(line);
    let prompt = line;
    const command = options.runCommand?.(line);
    if (command) {
      const outcome = await command;
      if (outcome === "exit") break;
      if (outcome === "continue") continue;
      prompt = outcome.prompt; // a prompt command (.harness/commands, /init): its text runs as typed
    }
    // `@path` mentions attach files (text inline, images as pictures); the line as typed is what the history keeps.
    const text = expandFileMentions(prompt, options.cwd);
    const attached = options.withImages ? await options.withImages(text) : { prompt: text };
    if ("error" in attached) {
      options.stderr.write(`${colors.red(`harness: ${attached.error}; nothing was sent`)}\n`);
      continue;
    }
    const turn = new AbortController();
    reader.onInterrupt = () => turn.abort();
    reader.beforeQuestion = () => renderer.pause();
    try {
      for await (const event of options.run(attached.prompt, turn.signal)) {
        renderer.handle(event);
        status?.record(event);
      }
    } finally {
      reader.onInterrupt = undefined;
      reader.beforeQuestion = undefined;
      renderer.pause();
    }
    const summary = status?.format();
    if (summary) options.stderr.write(`${colors.dim(summary)}\n`);
  }
  reader.close();
  return 0;
}
