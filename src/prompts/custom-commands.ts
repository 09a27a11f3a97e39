// Custom slash commands: Markdown files whose text becomes the prompt when the user types
// `/name args`, as in Claude Code. `$ARGUMENTS` is the whole argument text, `$1` … `$9` its
// words (quotes group words). Optional front matter: `description` (shown by /help) and
// `argument-hint` (shown after the name).
//
// From $HARNESS_HOME/commands/*.md (the user's) and .harness/commands/*.md in the working
// directory and its parents up to the repository root (the project's, nearest first); a name is
// taken once, the user's first. Project commands need no folder trust: one runs only when the
// user types its name, it only writes a prompt, and whatever that prompt leads the model to do
// goes through the same approvals and sandbox as a prompt typed by hand. (A skill, which the
// model follows on its own, does need trust: prompts/skills.ts.)
import path from "node:path";
import { foldersFromRoot } from "../core/system-prompt.ts";
import { namesIn } from "./folder-names.ts";
import { oneLine, parseFrontMatter } from "./front-matter.ts";
import { readPromptFile } from "./prompt-file.ts";

/** A command file larger than this is left out (a prompt, not a document). */
const MAX_COMMAND_FILE_BYTES = 64 * 1024;
/** Commands taken at most, so a folder of thousands of files cannot flood /help. */
const MAX_COMMANDS = 200;
/** What a command name may be: it is typed after `/`. */
const COMMAND_NAME = /^[a-z0-9][a-z0-9_-]*$/i;

/** One command that expands into a prompt. */
export interface PromptCommand {
  name: string;
  /** For /help: the front matter's description, else the body's first line. */
  description: string;
  /** `[focus]`: what to type after the name. */
  argumentHint?: string;
  /** The prompt, with its placeholders. */
  template: string;
  /** Its file; absent for the built-in ones. */
  path?: string;
}

/**
 * Built-in prompt commands, behind the files: a user's own `init.md` replaces /init.
 * /init: what peers do (Claude Code, Codex): the model surveys the repository and writes the file.
 */
export const BUILT_IN_PROMPT_COMMANDS: PromptCommand[] = [
  {
    name: "init",
    description: "ask the model to write or update AGENTS.md for this repository",
    template: [
      "Write or update AGENTS.md at the root of this repository: the instructions a coding agent (you, next time) needs to work here.",
      "Look before you write: the README, the build and test setup (package files, Makefile, CI config), the layout of the source, and any existing AGENTS.md, CLAUDE.md, .cursorrules or similar files.",
      "Cover, briefly: what the project is; how to build, lint and test it (exact commands, and how to run one test); the layout; conventions a newcomer would get wrong. Only facts you checked; no generic advice.",
      "If AGENTS.md exists, keep what is still true, fix what is not, and add what is missing. Keep it under about 100 lines.",
      "$ARGUMENTS",
    ].join("\n"),
  },
];

export interface CommandPlaces {
  cwd: string;
  harnessHome: string;
}

/** The user's and the project's commands, then the built-in ones a file did not replace; `reserved` names (the chat's own commands) are left out with a warning. */
export function findPromptCommands(
  places: CommandPlaces,
  reserved: readonly string[],
  warn: (message: string) => void,
): PromptCommand[] {
  const folders = [
    path.join(places.harnessHome, "commands"),
    ...foldersFromRoot(places.cwd)
      .reverse()
      .map((folder) => path.join(folder, ".harness", "commands")),
  ];
  const commands: PromptCommand[] = [];
  for (const command of [...folders.flatMap((folder) => commandsIn(folder, warn)), ...BUILT_IN_PROMPT_COMMANDS]) {
    const isReserved = reserved.includes(command.name);
    const first = commands.find((other) => other.name === command.name);
    if (command.path && (isReserved || first))
      warn(
        `command ${command.path} left out: /${command.name} is ${isReserved ? "a built-in command" : `already ${first?.path}`}`,
      );
    if (isReserved || first || commands.length >= MAX_COMMANDS) continue;
    commands.push(command);
  }
  return commands;
}

function commandsIn(folder: string, warn: (message: string) => void): PromptCommand[] {
  const commands: PromptCommand[] = [];
  for (const fileName of namesIn(folder).filter((name) => name.endsWith(".md"))) {
    const file = path.join(folder, fileName);
    const name = fileName.slice(0, -3);
    if (!COMMAND_NAME.test(name)) {
      warn(`command ${file} left out: a name is letters, digits, - and _`);
      continue;
    }
    const read = readPromptFile(file, MAX_COMMAND_FILE_BYTES);
    if ("leftOut" in read) {
      warn(`command ${file} left out: ${read.leftOut}`);
      continue;
    }
    const { fields, body } = parseFrontMatter(read.text);
    const firstLine = body.trim().split("\n")[0] ?? "";
    const description = oneLine(fields.description ?? "") || oneLine(firstLine).slice(0, 80);
    const argumentHint = oneLine(fields["argument-hint"] ?? "") || undefined;
    commands.push({ name: name.toLowerCase(), description, argumentHint, template: body.trim(), path: file });
  }
  return commands;
}

/**
 * The prompt for `/name args`: `$ARGUMENTS` and `$1` … `$9` filled in. Arguments given to a
 * command without placeholders are added after its text, so nothing typed is lost.
 */
export function expandPromptCommand(command: PromptCommand, args: string): string {
  const words = [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]);
  const hasPlaceholder = /\$(ARGUMENTS|[1-9])/.test(command.template);
  const filled = command.template.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string) =>
    which === "ARGUMENTS" ? args : (words[Number(which) - 1] ?? ""),
  );
  return (hasPlaceholder || !args ? filled : `${filled}\n\n${args}`).trim();
}

/** The prompt a typed line stands for, when it names one of `commands`; undefined otherwise. */
export function promptForLine(line: string, commands: readonly PromptCommand[]): string | undefined {
  const match = /^\/([\w-]+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  const command = match && commands.find((candidate) => candidate.name === match[1].toLowerCase());
  return command ? expandPromptCommand(command, (match[2] ?? "").trim()) : undefined;
}
