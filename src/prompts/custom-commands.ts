// Custom slash commands: Markdown files whose text becomes the prompt when the user types
// `/name args`, as in Claude Code. `$ARGUMENTS` is the whole argument text, `$1` … `$9` its
// words (quotes group words). Front matter: `description` (shown by /help) and `argument-hint`
// (shown after the name) are taken; `disable-model-invocation` needs nothing (harness's model never
// runs a command); `allowed-tools` and `model` are reported and not taken: a command file would
// otherwise widen what runs without a question, and harness asks as for any prompt. Any other key is
// reported with the nearest one.
//
// From the user's $HARNESS_HOME/commands and ~/.claude/commands, then the project's .harness/commands
// and .claude/commands in the working directory and its parents up to the repository root (nearest
// first); a name is taken once, the user's first. A file in a subfolder is namespaced as Claude Code
// did (`frontend/component.md` is `/frontend:component`), and, as Claude Code does now, also runs
// as `/component` when no other command has that name (https://docs.anthropic.com/en/docs/claude-code/slash-commands).
//
// Project commands need no folder trust: one runs only when the user types its name, it only writes
// a prompt, and whatever that prompt leads the model to do goes through the same approvals and
// sandbox as a prompt typed by hand. Its `@path` mentions and the paths in it the chat would take as
// dropped files attach only files inside the workspace (the user's commands: inside the home
// folder), never a credential path: a cloned repository's
// `/review` holding `@~/.ssh/id_rsa` sends nothing. (A skill, which the model follows on its own,
// does need trust: prompts/skills.ts.)
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { foldersFromRoot } from "../core/instruction-files.ts";
import { closestName } from "../shared/edit-distance.ts";
import { mentionsIn, pastedPathsIn, resolveMention } from "../shared/mentions.ts";
import { type Reach, whyOutOfReach } from "../shared/path-reach.ts";
import { realOrSame } from "../shared/real-path.ts";
import { markShellBlocks, type PromptWithCommands } from "./command-shell-lines.ts";
import { namesIn } from "./folder-names.ts";
import { oneLine, parseFrontMatter } from "./front-matter.ts";
import { readPromptFile } from "./prompt-file.ts";

/** A command file larger than this is left out (a prompt, not a document). */
const MAX_COMMAND_FILE_BYTES = 64 * 1024;
/** Commands taken at most, so a folder of thousands of files cannot flood /help. */
const MAX_COMMANDS = 200;
/** What a command name (and each namespace part) may be: it is typed after `/`. */
const COMMAND_NAME = /^[a-z0-9][a-z0-9_-]*$/i;
/** Subfolders of a commands folder read as namespaces, at most this deep. */
const MAX_NAMESPACE_DEPTH = 3;
/** The front matter keys a command file may have; the ones not taken are reported when a file has them. */
const FRONT_MATTER_KEYS = ["description", "argument-hint", "disable-model-invocation", "allowed-tools", "model"];
const KEYS_NOT_TAKEN: Record<string, string> = {
  "allowed-tools": "harness asks for each call as it does for any prompt",
  model: "the session's model runs it (/model changes that)",
};

/** One command that expands into a prompt. */
export interface PromptCommand {
  /** What the user types after `/`: `component`, or `frontend:component` for a file in a subfolder. */
  name: string;
  /** For /help: the front matter's description, else the body's first line. */
  description: string;
  /** `[focus]`: what to type after the name. */
  argumentHint?: string;
  /** The prompt, with its placeholders. */
  template: string;
  /** Its file; absent for the built-in ones. */
  path?: string;
  /** What the template's own `@path` mentions may attach (absent: built in, it has none). */
  reach?: Reach;
  /** A project's file (its `` !`cmd` `` blocks are asked about while the folder is not trusted). */
  isProject?: true;
}

/**
 * Built-in prompt commands, behind the files: a user's own `init.md` replaces /init.
 * /init: what peers do (Claude Code, Codex): the model surveys the repository and writes the file.
 * The file is the project's own: CLAUDE.md where the repository root has one and no AGENTS.md (a
 * Claude Code project, whose other tools read only that), else AGENTS.md.
 */
function builtInPromptCommands(repositoryRoot: string): PromptCommand[] {
  const file =
    existsSync(path.join(repositoryRoot, "CLAUDE.md")) && !existsSync(path.join(repositoryRoot, "AGENTS.md"))
      ? "CLAUDE.md"
      : "AGENTS.md";
  return [
    {
      name: "init",
      description: `ask the model to write or update ${file} for this repository`,
      template: [
        `Write or update ${file} at the root of this repository: the instructions a coding agent (you, next time) needs to work here.`,
        "Look before you write: the README, the build and test setup (package files, Makefile, CI config), the layout of the source, and any existing AGENTS.md, CLAUDE.md, .cursorrules or similar files.",
        "Cover, briefly: what the project is; how to build, lint and test it (exact commands, and how to run one test); the layout; conventions a newcomer would get wrong. Only facts you checked; no generic advice.",
        `If ${file} exists, keep what is still true, fix what is not, and add what is missing. Keep it under about 100 lines.`,
        "$ARGUMENTS",
      ].join("\n"),
    },
  ];
}

export interface CommandPlaces {
  cwd: string;
  harnessHome: string;
  home: string;
  /** Paths a command's `@path` never attaches (permissions/secret-paths.ts). */
  secretPaths: readonly string[];
}

/** The user's and the project's commands, then the built-in ones a file did not replace; `reserved` names (the chat's own commands) are left out with a warning. */
export function findPromptCommands(
  places: CommandPlaces,
  reserved: readonly string[],
  warn: (message: string) => void,
): PromptCommand[] {
  const folders = foldersFromRoot(places.cwd);
  const userReach = { secretPaths: places.secretPaths, roots: [realOrSame(places.home)], rootsName: "the home folder" };
  // The workspace, not the repository: a command is the repository's text, and what it attaches
  // goes to the model unasked, so it reaches no further than the file tools go without a question.
  const projectReach = { secretPaths: places.secretPaths, roots: [realOrSame(places.cwd)], rootsName: "the workspace" };
  // A command file itself may be anywhere in the repository (the root's .claude/commands from a subfolder).
  const projectFiles = {
    secretPaths: places.secretPaths,
    roots: [realOrSame(folders[0])],
    rootsName: "the repository",
  };
  const user = [path.join(places.harnessHome, "commands"), path.join(places.home, ".claude", "commands")];
  const project = folders
    .reverse()
    .flatMap((folder) => [path.join(folder, ".harness", "commands"), path.join(folder, ".claude", "commands")])
    .filter((folder) => !user.includes(folder)); // the home folder as a project: its commands are the user's
  const found = [
    ...user.flatMap((folder) => commandsIn(folder, [], { reach: userReach }, warn)),
    ...project.flatMap((folder) => commandsIn(folder, [], { reach: projectReach, fileReach: projectFiles }, warn)),
  ];
  const commands: PromptCommand[] = [];
  for (const command of [...found, ...builtInPromptCommands(projectFiles.roots[0])]) {
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

/** Whose commands a folder holds: what their mentions may reach. */
interface CommandOrigin {
  reach: Reach;
  /** Where a project's command file itself must lead (the repository); the user's files are theirs. */
  fileReach?: Reach;
}

/** The commands in `folder`, and in its subfolders as namespaces (`namespace`: the parts so far). */
function commandsIn(
  folder: string,
  namespace: string[],
  origin: CommandOrigin,
  warn: (message: string) => void,
): PromptCommand[] {
  const { reach } = origin;
  const commands: PromptCommand[] = [];
  for (const entry of namesIn(folder)) {
    const file = path.join(folder, entry);
    if (!entry.endsWith(".md")) {
      if (namespace.length < MAX_NAMESPACE_DEPTH && COMMAND_NAME.test(entry) && isFolder(file))
        commands.push(...commandsIn(file, [...namespace, entry], origin, warn));
      continue;
    }
    const name = entry.slice(0, -3);
    if (!COMMAND_NAME.test(name)) {
      warn(`command ${file} left out: a name is letters, digits, - and _`);
      continue;
    }
    // A project's command file that links out of the repository (or to a secret) is not read; the
    // user's own files are theirs wherever they link ($HARNESS_HOME itself is a secret path to others).
    const outOfReach = origin.fileReach ? whyOutOfReach(file, origin.fileReach) : undefined;
    const read = outOfReach ? { leftOut: outOfReach } : readPromptFile(file, MAX_COMMAND_FILE_BYTES);
    if ("leftOut" in read) {
      warn(`command ${file} left out: ${read.leftOut}`);
      continue;
    }
    const { fields, body } = parseFrontMatter(read.text);
    reportKeys(file, fields, warn);
    const firstLine = body.trim().split("\n")[0] ?? "";
    const description = oneLine(fields.description ?? "") || oneLine(firstLine).slice(0, 80);
    const argumentHint = oneLine(fields["argument-hint"] ?? "") || undefined;
    const fullName = [...namespace, name].join(":").toLowerCase();
    const isProject = origin.fileReach ? { isProject: true as const } : {};
    commands.push({
      name: fullName,
      description,
      argumentHint,
      template: body.trim(),
      path: file,
      reach,
      ...isProject,
    });
  }
  return commands;
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Front matter keys a command file has that harness does not take, or does not know. */
function reportKeys(file: string, fields: Record<string, string>, warn: (message: string) => void): void {
  for (const key of Object.keys(fields)) {
    if (KEYS_NOT_TAKEN[key]) warn(`command ${file}: ${key} is not taken (${KEYS_NOT_TAKEN[key]})`);
    else if (!FRONT_MATTER_KEYS.includes(key)) {
      const meant = closestName(key, FRONT_MATTER_KEYS, 3);
      warn(`command ${file}: unknown front matter key ${key}${meant ? `; did you mean ${meant}?` : ""}`);
    }
  }
}

/**
 * The prompt for `/name args`: `$ARGUMENTS` and `$1` … `$9` filled in. Arguments given to a
 * command without placeholders are added after its text, so nothing typed is lost. A mention in
 * the command's own text that is out of its reach loses its `@` and is quoted as code (the name
 * stays, so the model knows what was meant, and is told why nothing came with it); the user's
 * arguments are the user's.
 */
export function expandPromptCommand(command: PromptCommand, typed: string, where: CommandUse): PromptWithCommands {
  const args = typed.replaceAll("\u0000", ""); // a NUL would read as a mark of command-shell-lines.ts
  const words = [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]);
  const reached = withinReach(command, where.cwd);
  const { refused, kept } = reached;
  const { template, commands } = markShellBlocks(reached.template);
  const hasPlaceholder = /\$(ARGUMENTS|[1-9])/.test(template);
  const filled = template.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string) =>
    which === "ARGUMENTS" ? args : (words[Number(which) - 1] ?? ""),
  );
  const prompt = (hasPlaceholder || !args ? filled : `${filled}\n\n${args}`).trim();
  const notes = [...(where.attach?.(kept) ?? []), ...refused];
  const from = { name: command.name, isProject: command.isProject === true };
  return { text: notes.length > 0 ? `${prompt}\n\n${notes.join("\n\n")}` : prompt, commands, from };
}

/** Where a command is used: the working directory its mentions are resolved in, and, where the text is not attached after (a one-shot run), what attaches the template's own mentions. */
export interface CommandUse {
  cwd: string;
  attach?(mentions: readonly string[]): string[];
}

/** The command's text with the mentions it may not attach taken out of `@` form, and a line for each. */
function withinReach(command: PromptCommand, cwd: string): { template: string; refused: string[]; kept: string[] } {
  const { reach } = command;
  if (!reach) return { template: command.template, refused: [], kept: mentionsIn(command.template) };
  const refused: string[] = [];
  const kept: string[] = [];
  let template = command.template;
  for (const mention of new Set(mentionsIn(command.template))) {
    const file = resolveMention(mention, cwd);
    const why = existsSync(file) ? whyOutOfReach(file, reach) : undefined; // `@someone` names no file: nothing to refuse
    if (!why) {
      kept.push(mention);
      continue;
    }
    // In backticks: bare, `~/a.png` would read as a pasted path, which the chat attaches as a picture.
    template = template.replace(new RegExp(`(^|\\s)@${escapeRegExp(mention)}`, "g"), `$1\`${mention}\``);
    refused.push(`[${mention}: not attached, it is named by the /${command.name} command's file and ${why}]`);
  }
  // What the chat takes as a dropped file ('/home/u/a.png', "../a.png", ~/a.png, /abs/a.png) is
  // judged the same way: out of reach, it loses its quotes and goes in backticks, so it names
  // the file and attaches nothing.
  for (const { written, name } of pastedPathsIn(template)) {
    const file = resolveMention(name, cwd);
    const why = existsSync(file) ? whyOutOfReach(file, reach) : undefined;
    if (!why) continue;
    template = template.split(written).join(`\`${name}\``);
    refused.push(`[${name}: not attached, it is named by the /${command.name} command's file and ${why}]`);
  }
  return { template, refused, kept };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The prompt a typed line stands for, when it names one of `commands`; undefined otherwise.
 * `/component` names `frontend:component` too, when no command is called `component` and it is the first so namespaced.
 */
export function promptForLine(
  line: string,
  commands: readonly PromptCommand[],
  where: CommandUse,
): PromptWithCommands | undefined {
  const match = /^\/([\w:-]+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return undefined;
  const typed = match[1].toLowerCase();
  const command =
    commands.find((candidate) => candidate.name === typed) ??
    (typed.includes(":") ? undefined : commands.find((candidate) => candidate.name.endsWith(`:${typed}`)));
  return command ? expandPromptCommand(command, (match[2] ?? "").trim(), where) : undefined;
}
