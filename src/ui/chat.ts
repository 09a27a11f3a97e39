// The interactive chat loop: read a line, run it, show the turn, repeat. The lines come from
// a LineReader (line-reader.ts).

import type { TodoItem } from "../core/event-schema.ts";
import type { AgentEvent } from "../core/events.ts";
import type { UserContent } from "../core/messages.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { expandFileMentions } from "./attachments.ts";
import type { Palette } from "./colors.ts";
import type { LineReader } from "./editor/line-reader.ts";
import { TerminalRenderer } from "./render/terminal-renderer.ts";
import { formatTodoBlock, isPlanFinished } from "./render/todo-panel.ts";
import type { ShownDiffs } from "./shown-diffs.ts";
import type { CommandOutcome } from "./slash-commands.ts";
import { SessionStatus, type StatusLineSources } from "./status-line.ts";
import { fitWidth } from "./text-width.ts";

export interface ChatOptions {
  /** Runs one prompt (the session: its events come recorded and redacted). */
  run(prompt: string | UserContent, signal: AbortSignal): AsyncIterable<AgentEvent>;
  /** Attaches the images a line names (`@shot.png`, a pasted path); an error is shown and the line not sent. */
  withImages?(text: string): Promise<{ prompt: string | UserContent } | { error: string }>;
  /** `provider · model` for the header line. */
  title(): string;
  /** Where `@path` mentions are resolved. */
  cwd: string;
  /** What an `@path` never attaches: credentials and harness's state (permissions/secret-paths.ts). */
  secretPaths: readonly string[];
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  colors: Palette;
  /** Where the status line after each turn gets the context window and prices. */
  status?: StatusLineSources;
  /** Called with every entered line (input history is saved here). */
  onInput?(line: string): void;
  /** The session's plan now (a resumed session's at first; /clear and /resume change it): shown at the start and pinned while turns work. */
  todo?: () => readonly TodoItem[];
  /** Diffs the approval questions showed, so their results are not drawn twice. */
  shownDiffs?: ShownDiffs;
  /** Handles a slash command; returns undefined when the line is not one (it is then a prompt). */
  runCommand?(line: string): Promise<CommandOutcome> | undefined;
  /**
   * What happens in the session that this terminal did not start (a served session's other
   * clients, `harness attach`): waited for beside the prompt, which makes way for it (what was
   * typed comes back after). Undefined once `signal` aborts first.
   */
  elsewhere?(signal: AbortSignal): Promise<Elsewhere | undefined>;
}

/** A run someone else started (drawn as a turn; Ctrl-C interrupts it), or a line about the session. */
export type Elsewhere =
  | { type: "run"; run(signal: AbortSignal): AsyncIterable<AgentEvent> }
  | { type: "note"; text: string };

/**
 * The interactive chat: read a line, run the agent on it with replies streaming, repeat.
 * `/exit`, Ctrl-D or Ctrl-C twice at the empty prompt quit (an empty line does nothing, as at a
 * shell prompt); Ctrl-C interrupts a running turn and keeps the session.
 */
export async function runChat(options: ChatOptions, reader: LineReader): Promise<number> {
  const { colors } = options;
  const renderer = new TerminalRenderer({
    stdout: options.stdout,
    stderr: options.stderr,
    env: options.env,
    replies: "stream",
    showTrace: true,
    shownDiffs: options.shownDiffs,
  });
  // The header and the status line are cut to the terminal's width: a wrapped one would push the prompt around.
  const fit = (line: string) => fitWidth(line, options.stderr.columns || 80);
  options.stderr.write(`${colors.dim(fit(`harness · ${options.title()} · /exit or Ctrl-D quits · /help`))}\n`);
  const plan = options.todo?.() ?? [];
  if (plan.length > 0 && !isPlanFinished(plan))
    options.stderr.write(`${formatTodoBlock(plan, colors, options.stderr.columns || 80).join("\n")}\n`);
  const status = options.status ? new SessionStatus(options.status) : undefined;
  const showTurn = async (events: AsyncIterable<AgentEvent>, turn: AbortController, line?: string) => {
    renderer.setPlan(options.todo?.() ?? []);
    reader.onInterrupt = () => turn.abort();
    reader.beforeQuestion = () => renderer.holdForQuestion();
    reader.showNote = (text) => renderer.note(text);
    renderer.openInput();
    const unwatch = reader.watchTypeAhead?.((view) => renderer.showInput(view));
    try {
      for await (const event of events) {
        renderer.handle(event);
        status?.record(event);
        // A prompt a hook refused (the renderer showed why) comes back in the input, to fix and send again.
        if (event.type === "done" && event.blockedBy && line !== undefined) reader.keepForNextPrompt?.(line);
      }
    } finally {
      reader.onInterrupt = undefined;
      reader.beforeQuestion = undefined;
      reader.showNote = undefined;
      unwatch?.();
      renderer.closeInput();
      renderer.pause();
    }
    const summary = status?.format();
    if (summary) options.stderr.write(`${colors.dim(fit(summary))}\n`);
  };
  while (true) {
    const next = await nextInput(options, reader, colors.bold("> "));
    if (next.type === "note") {
      options.stderr.write(`${colors.dim(fit(showControlChars(next.text)))}\n`);
      continue;
    }
    if (next.type === "run") {
      const turn = new AbortController();
      await showTurn(next.run(turn.signal), turn);
      continue;
    }
    const { line } = next;
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
    const text = expandFileMentions(prompt, options.cwd, options.secretPaths);
    const attached = options.withImages ? await options.withImages(text) : { prompt: text };
    if ("error" in attached) {
      options.stderr.write(`${colors.red("error:")} ${showControlChars(attached.error)}; nothing was sent\n`);
      continue;
    }
    const turn = new AbortController();
    await showTurn(options.run(attached.prompt, turn.signal), turn, line);
  }
  reader.close();
  return 0;
}

/** The next line typed, or what happened elsewhere first (the prompt then makes way, keeping what was typed). */
async function nextInput(
  options: ChatOptions,
  reader: LineReader,
  prompt: string,
): Promise<{ type: "line"; line: string | undefined } | Elsewhere> {
  if (!options.elsewhere) return { type: "line", line: await reader.ask(prompt) };
  const waiting = new AbortController();
  type Next = { type: "line"; line: string | undefined } | Elsewhere;
  const asked = reader.ask(prompt, waiting.signal);
  const typed = asked.then((line): Next => ({ type: "line", line }));
  const first = await Promise.race<Next>([
    typed,
    options.elsewhere(waiting.signal).then((happened): Next | Promise<Next> => happened ?? typed),
  ]);
  waiting.abort();
  if (first.type === "line") return first;
  // Entered in the same moment: it is the next prompt's text, not lost.
  const line = await asked;
  if (line) reader.keepForNextPrompt?.(line);
  return first;
}
