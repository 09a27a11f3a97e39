// Permission rules as data: `tool` or `tool(pattern)`, read from settings files or added by
// "always" answers, and how one matches a call.
import path from "node:path";
import type { Tool } from "../core/tool.ts";
import { splitCommand, type SimpleCommand } from "./shell-split.ts";

/**
 * One rule. `tool` is a tool name (`bash`, `edit_file`), or a group: `read` (every read-only
 * tool) or `edit` (every tool that edits files). For `bash` the pattern is a command prefix;
 * for other tools it is a path glob.
 */
export interface Rule {
  tool: string;
  pattern?: string;
  /** As written, for messages: `bash(git status)`. */
  text: string;
  /** Where it came from: a settings file, or "this session". */
  source: string;
  /**
   * From the user's own settings file or answer. Only such a rule may let a file tool past the
   * workspace: a project file may have been written by a cloned repository or by the model.
   */
  trusted: boolean;
}

const RULE_SYNTAX = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$/s;
/** Wrappers that run their arguments as a command; a deny rule looks through them. */
const COMMAND_WRAPPERS = new Set(["sudo", "env", "command", "exec", "nohup", "nice", "time", "xargs", "timeout", "stdbuf", "doas", "builtin"]);
/** Shells and `eval`, whose string argument is itself a command line a deny rule must see. */
const NESTED_SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
/** How deep `bash -c "bash -c '...'"` is followed. */
const MAX_SHELL_NESTING = 5;

/** Parses `bash(git status)`, `Edit(src/**)`, `read_file`; returns an error message for anything else. */
export function parseRule(text: string, source: string, trusted: boolean): Rule | string {
  const match = RULE_SYNTAX.exec(text.trim());
  if (!match) return `"${text}" is not a rule: write a tool name, or tool(pattern) like bash(git status) or edit_file(src/**)`;
  const pattern = match[2]?.trim();
  if (match[2] !== undefined && !pattern) return `"${text}" has an empty pattern: leave out the parentheses to match every call`;
  return { tool: match[1].toLowerCase(), pattern, text: text.trim(), source, trusted };
}

/** Whether a rule's tool part names this tool (by name, case-insensitively, or by its group). */
export function ruleNamesTool(rule: Rule, tool: Tool): boolean {
  return rule.tool === tool.name.toLowerCase() || (rule.tool === "read" && tool.kind === "read") || (rule.tool === "edit" && tool.kind === "edit");
}

/**
 * Whether a bash pattern covers one simple command. `git status` (or Claude Code's
 * `git status:*`) matches those words followed by anything; `npm run test*` is a plain text
 * prefix, so it also matches `npm run test:unit`.
 */
export function commandMatches(pattern: string, words: string[]): boolean {
  if (words.length === 0) return false;
  const text = pattern.replace(/:\*$/, "").trim();
  if (text.endsWith("*")) return words.join(" ").startsWith(text.slice(0, -1));
  const wanted = text.split(/\s+/);
  return wanted.length <= words.length && wanted.every((word, index) => words[index] === word);
}

/**
 * The ways a deny rule looks at a command: as written, without leading `NAME=value`
 * assignments and wrappers (`sudo rm ...`), and inside `bash -c '...'` or `eval ...`.
 */
export function denyViews(command: SimpleCommand, depth = 0): string[][] {
  const views = [command.words];
  let words = command.words;
  while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]) || COMMAND_WRAPPERS.has(words[0]) || words[0].startsWith("-") || /^\d+[smhd]?$/.test(words[0]))) {
    words = words.slice(1);
  }
  if (words !== command.words && words.length > 0) views.push(words);
  if (depth >= MAX_SHELL_NESTING) return views;
  const inner = innerCommandLine(words);
  if (inner !== undefined) for (const nested of splitCommand(inner).commands) views.push(...denyViews(nested, depth + 1));
  return views;
}

function innerCommandLine(words: string[]): string | undefined {
  if (words[0] === "eval") return words.slice(1).join(" ");
  if (!NESTED_SHELLS.has(path.basename(words[0] ?? ""))) return undefined;
  const flag = words.findIndex((word) => /^-[a-z]*c[a-z]*$/.test(word));
  return flag === -1 ? undefined : words[flag + 1];
}

/**
 * Whether a path glob covers an absolute path. `~/` is the home folder; a relative pattern
 * starts at the workspace; `**` crosses folders, `*` and `?` stay within one name; a pattern
 * naming a folder covers everything inside it.
 */
export function pathMatches(pattern: string, absolute: string, where: { workspace: string; home: string }): boolean {
  const expanded = pattern === "~" || pattern.startsWith("~/") ? path.join(where.home, pattern.slice(1)) : pattern;
  const full = path.resolve(where.workspace, expanded).replace(/\/+$/, "") || "/";
  const regex = globRegExp(full);
  return regex.test(absolute) || globRegExp(`${full === "/" ? "" : full}/**`).test(absolute);
}

function globRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*" && glob[i + 1] === "*") {
      // `dir/**` also matches `dir` itself; `a/**/b` matches `a/b`.
      if (glob[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 2;
      } else {
        if (source.endsWith("/")) source = `${source.slice(0, -1)}(?:/.*)?`;
        else source += ".*";
        i += 1;
      }
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
