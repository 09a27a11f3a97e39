// The interactive chat loop: read a line, run it, show the turn, repeat. The lines come from
// a LineReader (line-reader.ts).

import type { TodoItem } from "../core/event-schema.ts";
import type { AgentEvent } from "../core/events.ts";
import type { UserContent } from "../core/messages.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { expandFileMentions } from "./attachments.ts";
import type { Palette } from "./colors.ts";
import type { CommandOutcome } from "./commands/command-spec.ts";
import type { LineReader } from "./editor/line-reader.ts";
import { type ChatModeControls, choosePlanNext } from "./plan-choice.ts";
import { TerminalRenderer } from "./render/terminal-renderer.ts";
import { formatTodoBlock, isPlanFinished } from "./render/todo-panel.ts";
import type { ShownDiffs } from "./shown-diffs.ts";
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
  /** The approval modes (Shift-Tab, the status line) and what follows a plan proposed in plan mode. */
  modes?: ChatModeControls;
  /**
   * What happens in the session that this terminal did not start (a served session's other
   * clients, `harness attach`): waited for beside the prompt, which makes way for it (what was
   * typed comes back after). Undefined once `signal` aborts first.
   */
  elsewhere?(signal: AbortSignal): Promise<Elsewhere | undefined>;
}

/** A line read at the prompt: a prompt to run (and the line as typed), or what the loop does instead. */
type ReadOutcome = { prompt: string | UserContent; line: string } | "exit" | "continue";

/** A run someone else started (drawn as a turn; Ctrl-C interrupts it), or a line about the session. */
export type Elsewhere =
  | { type: "run"; run(signal: AbortSignal): AsyncIterable<AgentEvent> }
  | { type: "note"; text: string };

/**
 * The interactive chat: read a line, run the agent on it with replies streaming, repeat.
 * `/exit`, Ctrl-D or Ctrl-C twice at the empty prompt quit (an empty line does nothing, as at a
 * shell prompt); Ctrl-C interrupts a running turn and keeps the session. A plan proposed in plan
 * mode is followed by its choices (plan-choice.ts), whose prompt runs next without a line read.
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
  const say = (text: string) => options.stderr.write(`${colors.dim(fit(text))}\n`);
  const mode = options.modes?.statusPart();
  say(`harness · ${options.title()}${mode ? ` · ${mode} (Shift-Tab cycles)` : ""} · /exit or Ctrl-D quits · /help`);
  const todo = options.todo?.() ?? [];
  if (todo.length > 0 && !isPlanFinished(todo))
    options.stderr.write(`${formatTodoBlock(todo, colors, options.stderr.columns || 80).join("\n")}\n`);
  const status = options.status ? new SessionStatus(options.status) : undefined;
  let next: string | undefined;
  while (true) {
    let read: ReadOutcome;
    if (next !== undefined) {
      read = { prompt: next, line: "" };
      next = undefined;
    } else {
      const input = await nextInput(options, reader, colors.bold("> "));
      if (input.type === "note") {
        say(showControlChars(input.text));
        continue;
      }
      if (input.type === "run") {
        await runTurn(options, reader, renderer, status, { run: input.run, line: "" });
        const summary = status?.format();
        if (summary) say(summary);
        continue;
      }
      read = await promptOf(options, input.line);
    }
    if (read === "exit") break;
    if (read === "continue") continue;
    const { prompt, line } = read;
    const plan = await runTurn(options, reader, renderer, status, {
      run: (signal) => options.run(prompt, signal),
      line,
    });
    const summary = status?.format();
    if (summary) say(summary);
    if (plan !== undefined && options.modes)
      next = await choosePlanNext(plan, { ask: (question) => reader.ask(question), say, colors, modes: options.modes });
  }
  reader.close();
  return 0;
}

/** A line read made a prompt: a slash command runs here, `@path` mentions attach their files. */
async function promptOf(options: ChatOptions, line: string | undefined): Promise<ReadOutcome> {
  const { colors } = options;
  if (line === undefined) return "exit";
  if (line.trim() === "") return "continue";
  options.onInput?.(line);
  let prompt = line;
  const command = options.runCommand?.(line);
  if (command) {
    const outcome = await command;
    if (outcome === "exit" || outcome === "continue") return outcome;
    prompt = outcome.prompt; // a prompt command (.harness/commands, /init): its text runs as typed
  }
  // `@path` mentions attach files (text inline, images as pictures); the line as typed is what the history keeps.
  const text = expandFileMentions(prompt, options.cwd, options.secretPaths);
  const attached = options.withImages ? await options.withImages(text) : { prompt: text };
  if ("error" in attached) {
    options.stderr.write(`${colors.red("error:")} ${showControlChars(attached.error)}; nothing was sent\n`);
    return "continue";
  }
  return { prompt: attached.prompt, line };
}

/**
 * Shows one run with the turn's keys wired to it: a prompt typed here, or a run another client of
 * a served session started (`line` empty: nothing to give back); returns the plan it proposed
 * (plan mode), if any.
 */
async function runTurn(
  options: ChatOptions,
  reader: LineReader,
  renderer: TerminalRenderer,
  status: SessionStatus | undefined,
  { run, line }: { run(signal: AbortSignal): AsyncIterable<AgentEvent>; line: string },
): Promise<string | undefined> {
  renderer.setPlan(options.todo?.() ?? []);
  const turn = new AbortController();
  reader.onInterrupt = () => turn.abort();
  reader.beforeQuestion = () => renderer.holdForQuestion();
  reader.showAbove = (write) => renderer.above(write);
  renderer.openInput();
  const unwatch = reader.watchTypeAhead?.((view) => renderer.showInput(view));
  let plan: string | undefined;
  try {
    for await (const event of run(turn.signal)) {
      renderer.handle(event);
      status?.record(event);
      if (event.type !== "done") continue;
      // A prompt a hook refused (the renderer showed why) comes back in the input, to fix and send again.
      if (event.blockedBy && line !== "") reader.keepForNextPrompt?.(line);
      if (event.reason === "stop") plan = event.plan;
    }
  } finally {
    reader.onInterrupt = undefined;
    reader.beforeQuestion = undefined;
    reader.showAbove = undefined;
    unwatch?.();
    renderer.closeInput();
    renderer.pause();
  }
  return plan;
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
