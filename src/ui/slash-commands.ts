// Chat commands typed as `/name args`. This file parses them and finds their record; each group of
// records is its own module in ui/commands/, and what they act on (the session, the provider) is
// reached through ChatControls (commands/command-spec.ts), which the CLI wiring provides.
import { showControlChars } from "../shared/control-chars.ts";
import { closestName } from "../shared/edit-distance.ts";
import type { Palette } from "./colors.ts";
import { AGENTS_COMMANDS } from "./commands/agents-command.ts";
import type { ChatControls, CommandOutcome, CommandSpec, PromptCommandInfo } from "./commands/command-spec.ts";
import { HOOKS_COMMANDS } from "./commands/hooks-command.ts";
import { MCP_COMMANDS } from "./commands/mcp-command.ts";
import { MODEL_COMMANDS } from "./commands/model-commands.ts";
import { PERMISSIONS_COMMANDS } from "./commands/permissions-command.ts";
import { SESSION_COMMANDS } from "./commands/session-commands.ts";
import { STATUS_COMMANDS } from "./commands/status-command.ts";
import { WORKSPACE_COMMANDS } from "./commands/workspace-commands.ts";
import { wrapToWidth } from "./text-width.ts";

const COMMANDS: Record<string, CommandSpec> = {
  help: { usage: "/help", help: "this list", run: (_, controls, say) => say(helpText(controls.promptCommands())) },
  ...MODEL_COMMANDS,
  ...SESSION_COMMANDS,
  ...WORKSPACE_COMMANDS,
  ...STATUS_COMMANDS,
  ...PERMISSIONS_COMMANDS,
  ...HOOKS_COMMANDS,
  ...AGENTS_COMMANDS,
  ...MCP_COMMANDS,
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
    const prompt = await controls.promptFor(line);
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
