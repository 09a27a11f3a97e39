// Chat commands typed as `/name args`. This file parses and answers them; what they act on
// (the session, the provider) is reached through ChatControls, which the CLI wiring provides.
import { showControlChars } from "../shared/control-chars.ts";
import { closestName } from "../shared/edit-distance.ts";
import { parsePositiveInteger } from "../shared/helpers.ts";
import type { Palette } from "./colors.ts";
import { type LanguageServerView, languageServersText } from "./lsp-command.ts";
import { wrapToWidth } from "./text-width.ts";

/** What the slash commands can do to the running chat. Errors thrown carry a message for the user. */
export interface ChatControls {
  /** `provider · model` now in use. */
  currentModel(): string;
  /** The models the provider offers, one line each, the one in use marked (known ones when the endpoint cannot list them). */
  listModels(): Promise<string[]>;
  /** Switches the model for the next replies (same provider and settings); returns the new `provider · model`. */
  switchModel(model: string): Promise<string>;
  /** Starts a new, empty session; returns its id. */
  newSession(): string;
  /** The current session's id. */
  sessionId(): string;
  /** Tokens used by the current session so far and their cost in dollars, worded as a one-shot run's summary. */
  usageAndCost(): string;
  /** Recent sessions, one formatted line each. */
  listSessions(): string[];
  /** Continues another session (id or unique prefix), here or, when the person chose its folder, by leaving this chat for one there. */
  resume(id: string): Promise<ResumeOutcome>;
  /** Moves the session into a new git worktree (`/worktree [name]`), by leaving this chat for one there. */
  enterWorktree?(name: string): ResumeOutcome;
  /** Goes on in a copy of the current session under a new id (as `--fork`); returns what to tell the person. */
  fork(): Promise<string>;
  /** Writes the current session to a file; returns the path written. */
  exportSession(format: "md" | "html", file?: string): string;
  /** Commands that expand into a prompt (`.harness/commands/*.md`, /init), for /help and Tab. */
  promptCommands(): readonly PromptCommandInfo[];
  /** The prompt `/name args` stands for, when `name` is a prompt command. */
  promptFor(line: string): string | undefined;
  /** The skills the model may use, one line each, and a note on any left out. */
  listSkills(): string[];
  /** Takes back the last `turns` turns, files and conversation, once the person said yes to the list of files; says what happened. */
  undo(turns: number): Promise<string>;
  /** Reverses the latest undo the same way. */
  redo(): Promise<string>;
  /** Summarises the older part of the conversation to free context (`focus`: what to keep in particular). */
  compact(focus: string): Promise<string>;
  /** How much the model thinks now (`high`, `4096 tokens`, `default`). */
  thinking(): string;
  /** Sets how much the model thinks (a level or a token budget, as typed); returns what to tell the user. */
  setThinking(level: string): Promise<string>;
  /** The session's background processes, one line each (running and recently ended). */
  listBackground(): string[];
  /** Stops one background process and its tree; returns how it ended. */
  killBackground(id: number): Promise<string>;
  /** `/network [add|save|remove entry]`: does it, and says what sandboxed commands may reach (cli/chat-network.ts). */
  network?(args: string): string;
  /** The approval mode and what it means (`mode` empty), or switches to `mode` (ask, edits, plan); says which. */
  approvalMode(mode: string): string;
  /** The session's language servers now: each one's state and the diagnostics it gave (/lsp). */
  languageServers(): readonly LanguageServerView[];
}

/** What `/resume` tells the person, and whether this chat ends so the session can continue in its own folder. */
export interface ResumeOutcome {
  said: string;
  isLeaving: boolean;
}

/** A prompt command as /help shows it. */
export interface PromptCommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
}

/** What the chat loop does after a command: read the next line, leave, or run a prompt the command wrote. */
export type CommandOutcome = "continue" | "exit" | { prompt: string };

interface CommandSpec {
  usage: string;
  help: string;
  run(
    args: string,
    controls: ChatControls,
    say: (text: string) => void,
  ): Promise<CommandOutcome | void> | CommandOutcome | void;
}

const COMMANDS: Record<string, CommandSpec> = {
  help: { usage: "/help", help: "this list", run: (_, controls, say) => say(helpText(controls.promptCommands())) },
  clear: {
    usage: "/clear",
    help: "start a new session (the old one stays on disk)",
    run: (_, controls, say) => say(`new session ${controls.newSession()}`),
  },
  model: {
    usage: "/model [name]",
    help: "list the provider's models (the one in use marked), or switch to another of them",
    run: async (args, controls, say) =>
      say(args ? `now using ${await controls.switchModel(args)}` : (await controls.listModels()).join("\n")),
  },
  thinking: {
    usage: "/thinking [off|low|medium|high|tokens]",
    help: "show or set how much the model thinks",
    run: async (args, controls, say) =>
      say(args ? await controls.setThinking(args) : `thinking: ${controls.thinking()}`),
  },
  cost: {
    usage: "/cost",
    help: "tokens used in this session, and what they cost",
    run: (_, controls, say) => say(`this session: ${controls.usageAndCost()}`),
  },
  compact: {
    usage: "/compact [focus]",
    help: "summarise the older part of the conversation to free context",
    run: async (args, controls, say) => say(await controls.compact(args)),
  },
  resume: {
    usage: "/resume [id]",
    help: "continue another session (without an id: list recent ones)",
    run: async (args, controls, say) => {
      if (!args) return say([...controls.listSessions(), "continue one with /resume <id>"].join("\n"));
      const { said, isLeaving } = await controls.resume(args);
      say(said);
      return isLeaving ? "exit" : "continue";
    },
  },
  worktree: {
    usage: "/worktree [name]",
    help: "go on in a new git worktree of this repository, on branch harness/<name>",
    run: (args, controls, say) => {
      const { said, isLeaving } = controls.enterWorktree?.(args) ?? { said: "no worktrees here", isLeaving: false };
      say(said);
      return isLeaving ? "exit" : "continue";
    },
  },
  fork: {
    usage: "/fork",
    help: "go on in a copy of this session under a new id (the original stays as it is, as with --fork)",
    run: async (_, controls, say) => say(await controls.fork()),
  },
  sessions: {
    usage: "/sessions",
    help: "list recent sessions",
    run: (_, controls, say) => {
      const lines = controls.listSessions();
      say(lines.length > 0 ? lines.join("\n") : "no sessions yet");
    },
  },
  export: {
    usage: "/export [md|html] [file]",
    help: "write this session as a web page (default) or Markdown",
    run: (args, controls, say) => {
      const [first, ...rest] = args.split(/\s+/).filter(Boolean);
      const isFormat = first === "md" || first === "html";
      const file = (isFormat ? rest : [first, ...rest]).filter(Boolean).join(" ") || undefined;
      const format = isFormat ? first : file && /\.(md|markdown)$/i.test(file) ? "md" : "html";
      say(`wrote ${controls.exportSession(format, file)}`);
    },
  },
  undo: {
    usage: "/undo [n]",
    help: "take back the last turn (or n turns): files and conversation; lists the files and asks first",
    run: async (args, controls, say) => {
      const turns = args ? parsePositiveInteger(args) : 1;
      if (turns === undefined) throw new Error("/undo takes a number of turns, such as /undo 2");
      say(await controls.undo(turns));
    },
  },
  redo: { usage: "/redo", help: "reverse the last /undo", run: async (_, controls, say) => say(await controls.redo()) },
  skills: {
    usage: "/skills",
    help: "the skills the model may read when a task matches (SKILL.md folders)",
    run: (_, controls, say) => say(controls.listSkills().join("\n")),
  },
  mode: {
    usage: "/mode [ask|edits|plan]",
    help: "show or switch the approval mode (Shift-Tab cycles them; plan: nothing changes, the model proposes a plan)",
    run: (args, controls, say) => say(controls.approvalMode(args)),
  },
  ps: {
    usage: "/ps [kill id]",
    help: "the background processes the model started (they end with the session); kill stops one",
    run: async (args, controls, say) => {
      if (!args) {
        const lines = controls.listBackground();
        return say(lines.length > 0 ? lines.join("\n") : "no background processes");
      }
      const [verb, id] = args.split(/\s+/);
      const number = id === undefined ? undefined : parsePositiveInteger(id);
      if (verb !== "kill" || number === undefined)
        throw new Error("/ps takes no argument, or kill and an id: /ps kill 2");
      say(await controls.killBackground(number));
    },
  },
  network: {
    usage: "/network [add|save|remove host]",
    help: "what sandboxed commands may reach, your grants, the latest connections; add (this session), save (this project)",
    run: (args, controls, say) => say(controls.network?.(args) ?? "no sandboxed network in this chat"),
  },
  lsp: {
    usage: "/lsp",
    help: "the language servers: their state, and the errors and warnings they found this session",
    run: (_, controls, say) => say(languageServersText(controls.languageServers())),
  },
  exit: { usage: "/exit", help: "leave the chat (also: Ctrl-D, or Ctrl-C twice)", run: () => "exit" },
};

/** The names of the chat's own commands: a command file cannot take one. */
export const BUILT_IN_COMMANDS: readonly string[] = Object.keys(COMMANDS);

/** `/word ...` (or `/space:word ...`, a namespaced custom command) is a command; `/usr/bin/x is broken` (a path) is a prompt. */
export function isSlashCommand(line: string): boolean {
  return /^\/[a-z][\w:-]*(\s|$)/i.test(line.trim());
}

/** Runs one command line; problems (an unknown command, a failed switch) are told, never thrown. */
export async function runSlashCommand(
  line: string,
  controls: ChatControls,
  output: NodeJS.WritableStream,
  colors: Palette,
): Promise<CommandOutcome> {
  const [, name, args] = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  // Wrapped at words to the terminal's width: a 60-column terminal broke /help and /cost mid-word.
  const columns = (output as NodeJS.WriteStream).columns;
  const fit = (text: string) => (columns ? wrapToWidth(text, columns) : text);
  const say = (text: string): void => {
    // What a command says may quote a file, a server or a session (a skill's description, an MCP error).
    output.write(`${colors.dim(fit(showControlChars(text)))}\n`);
  };
  const command = COMMANDS[name?.toLowerCase() ?? ""];
  if (!command) {
    const prompt = controls.promptFor(line);
    if (prompt !== undefined) return { prompt };
    const promptCommands = controls.promptCommands();
    const closest = closestCommand(
      name ?? "",
      promptCommands.map((custom) => custom.name),
    );
    const usage =
      closest &&
      (COMMANDS[closest]?.usage ??
        usageOf(promptCommands.find((custom) => custom.name === closest) as PromptCommandInfo));
    output.write(
      `${fit(`${colors.yellow(`unknown command /${name}`)}${usage ? `; did you mean ${usage}?` : ""} (/help lists them)`)}\n`,
    );
    return "continue";
  }
  try {
    return (await command.run(args.trim(), controls, say)) ?? "continue";
  } catch (error) {
    output.write(
      `${fit(`${colors.red("error:")} ${showControlChars(error instanceof Error ? error.message : String(error))}`)}\n`,
    );
    return "continue";
  }
}

/** The keys of the line editor (line-editor.ts, keys.ts), as /help lists them. */
const KEY_HELP: ReadonlyArray<[string, string]> = [
  ["Enter", "send (typed while the agent works: queued for its next step)"],
  ["Alt-Enter", "a new line (also Shift-Enter where the terminal reports it, or Ctrl-J)"],
  ["Esc", "interrupt the turn (also Ctrl-C)"],
  ["Ctrl-R", "search earlier input; the arrows step through it"],
  ["Tab", "complete a /command or an @path"],
  ["Shift-Tab", "the next approval mode: ask → edits → plan (as /mode)"],
  ["@path", "attach a file (text inline, an image as a picture)"],
  ["Ctrl-D", "quit at the empty prompt (or Ctrl-C twice, or /exit)"],
];

/** The built-in commands, then the prompt commands (files and /init), then the keys. */
function helpText(promptCommands: readonly PromptCommandInfo[]): string {
  const rows = [
    ...Object.values(COMMANDS).map((c) => [c.usage, c.help]),
    ...promptCommands.map((c) => [usageOf(c), c.description]),
  ];
  const width = Math.max(...[...rows, ...KEY_HELP].map(([usage]) => usage.length));
  const table = (lines: ReadonlyArray<string[]>) => lines.map(([usage, help]) => `${usage.padEnd(width)}  ${help}`);
  return [...table(rows), "", "keys:", ...table(KEY_HELP)].join("\n");
}

const usageOf = (command: PromptCommandInfo) =>
  `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`;

/** The names Tab completes: the built-in commands and the prompt commands. */
export function commandNames(promptCommands: readonly PromptCommandInfo[]): string[] {
  return [...Object.keys(COMMANDS), ...promptCommands.map((c) => c.name)].map((name) => `/${name}`);
}

/** Largest edit distance still offered as "did you mean". */
const MAX_SUGGESTION_DISTANCE = 3;

/** The known command nearest to a mistyped name (a prefix wins), if any is near enough; `more` are the prompt commands' names. */
export function closestCommand(name: string, more: readonly string[] = []): string | undefined {
  const wanted = name.toLowerCase();
  const names = [...Object.keys(COMMANDS), ...more];
  const byPrefix = names.find((candidate) => wanted.length > 0 && candidate.startsWith(wanted));
  return byPrefix ?? closestName(wanted, names, MAX_SUGGESTION_DISTANCE);
}
