// Permission rules as data: `tool` or `tool(pattern)`, read from settings files or added by
// "always" answers, and how one matches a call.
import path from "node:path";
import type { Tool } from "../core/tool.ts";
import { FILE_READING_RULE_TOOLS, resolveRuleTool, specifierOf } from "../settings/tool-names.ts";
import { globCovers } from "../shared/path-glob.ts";
import { unwrap } from "./command-views.ts";
import { isOpen, type SimpleCommand, UNKNOWN } from "./shell-split.ts";

/**
 * One rule. `tool` is a tool name (`bash`, `edit_file`), or a group: `read` (every read-only
 * tool) or `edit` (every tool that edits files). For `bash` the pattern is a command prefix;
 * for other tools it is a path glob.
 */
export interface Rule {
  /** The harness tool or group, resolved from Claude Code's names too (`Write` is write_file: settings/tool-names.ts). */
  tool: string;
  /** Set for `mcp__srv` and `mcp__srv__*`: every tool of that MCP server (`tool` is then `mcp__srv`). */
  server?: string;
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

const RULE_SYNTAX = /^([A-Za-z_][A-Za-z0-9_.-]*\*?)(?:\((.*)\))?$/s;

/** How to read a rule's pattern: Claude Code's files give `/path` relative to the project (`root`) and `//path` from `/`. */
export interface RuleDialect {
  claudeRoot?: string;
}

/**
 * Parses `bash(git status)`, `Edit(src/**)`, `read_file`, and Claude Code's `Write`,
 * `Bash(npm test:*)`, `WebFetch(domain:example.com)`, `mcp__srv__tool`; returns an error
 * message for anything else. Whether the name is a real tool is check-names' question, asked
 * once the tools are known.
 */
export function parseRule(text: string, source: string, trusted: boolean, dialect: RuleDialect = {}): Rule | string {
  const match = RULE_SYNTAX.exec(text.trim());
  if (!match)
    return `"${text}" is not a rule: write a tool name, or tool(pattern) like bash(git status) or edit_file(src/**)`;
  let pattern = match[2]?.trim();
  if (match[2] !== undefined && !pattern)
    return `"${text}" has an empty pattern: leave out the parentheses to match every call`;
  const target = resolveRuleTool(match[1]);
  if (target.server !== undefined) {
    if (pattern !== undefined) return `"${text}" names a whole MCP server: it takes no pattern`;
    return { tool: `mcp__${target.server}`, server: target.server, text: text.trim(), source, trusted };
  }
  if (pattern !== undefined) {
    const kind = specifierOf(target.tool);
    if (kind === "domain") pattern = pattern.replace(/^domain:/, "");
    if (kind === "path" && dialect.claudeRoot !== undefined) pattern = claudePath(pattern, dialect.claudeRoot);
  }
  return { tool: target.tool, pattern, text: text.trim(), source, trusted };
}

/** Claude Code's path forms (https://code.claude.com/docs/en/iam#read-and-edit): `//x` is `/x`, `/x` is under the project. */
function claudePath(pattern: string, root: string): string {
  if (pattern.startsWith("//")) return pattern.slice(1);
  if (pattern.startsWith("/")) return path.join(root, pattern);
  return pattern;
}

/** Whether a rule's tool part names this tool (by name, case-insensitively, by its group, or by its MCP server). */
export function ruleNamesTool(rule: Rule, tool: Tool): boolean {
  const name = tool.name.toLowerCase();
  return (
    rule.tool === name ||
    (rule.server !== undefined && name.startsWith(`${rule.server}__`)) ||
    (rule.tool === "read" && tool.kind === "read") ||
    (rule.tool === "edit" && tool.kind === "edit")
  );
}

/**
 * Whether a bash pattern covers one simple command. `git status` (or Claude Code's
 * `git status:*`) matches those words followed by anything. With `*` it is Claude Code's
 * wildcard over the command's words joined by spaces (https://code.claude.com/docs/en/permissions):
 * `*` is any text, so `npm run test*` also matches `npm run test:unit` and `git * main` matches
 * `git checkout main`; a trailing ` *` may match nothing, so `git push *` matches `git push` (a
 * deny or ask rule written so must not miss the bare command) but not `git pushx`.
 */
export function commandMatches(pattern: string, words: string[]): boolean {
  if (words.length === 0) return false;
  const text = pattern.replace(/:\*$/, "").trim().split(/\s+/).join(" ");
  if (text.includes("*")) return wildcardRegExp(text).test(words.join(" "));
  const wanted = text.split(" ");
  return wanted.length <= words.length && wanted.every((word, index) => words[index] === word);
}

/**
 * Whether a bash pattern could cover a command some of whose words are open (only known when it
 * runs: shell-split.ts): what is known of it, up to its first open word, does not rule the
 * pattern out. `git \0` may be `git push`; `git log \0` is never `git push …`; `\0` may be anything.
 */
export function commandMayMatch(pattern: string, words: string[]): boolean {
  const open = words.findIndex(isOpen);
  if (open === -1) return commandMatches(pattern, words);
  const known = [...words.slice(0, open), words[open].slice(0, words[open].indexOf(UNKNOWN))].join(" ");
  const text = pattern.replace(/:\*$/, "").trim().split(/\s+/).join(" ");
  if (text.includes("*")) {
    const literal = text.slice(0, text.indexOf("*"));
    return literal.startsWith(known) || known.startsWith(literal);
  }
  return `${text} `.startsWith(known) || known.startsWith(`${text} `);
}

function wildcardRegExp(text: string): RegExp {
  const isOptionalTail = text.endsWith(" *");
  const body = isOptionalTail ? text.slice(0, -2) : text;
  const source = body
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}${isOptionalTail ? "(?: .*)?" : ""}$`, "s");
}

/** What allow rules say about one simple command: covered, or not (with the reason when no rule could cover it). */
export type Coverage = { covered: true } | { covered: false; why?: string };

/**
 * Whether allow rules cover one simple command. What it runs inside must be covered too: a
 * rule naming only the wrapper (`bash(timeout)`, `bash(xargs)`, `bash(find)`) does not cover
 * `timeout 5 rm x`, `xargs rm` or `find -exec rm`; `bash(timeout 5 npm test)` names more and
 * does. A string handed to a shell (`bash -c`, `eval`, `env -S`) or a computed command name is
 * never covered: the rule cannot see what it runs.
 */
export function allowCoverage(command: SimpleCommand, rulesFor: (words: string[]) => Rule[], depth = 0): Coverage {
  // A word bash computes when it runs is open: a rule covers the command only by what is known
  // before it (`bash(ls)` covers `ls $dir`; `bash(git status)` does not cover `git $x`).
  const words = command.openWords ?? command.words;
  const inner = unwrap(words);
  if (inner.opaque) return { covered: false, why: inner.opaque };
  const rules = rulesFor(words);
  if (rules.length === 0) return { covered: false };
  const namesMoreThanWrapper = rules.some(
    (rule) => rule.pattern !== undefined && patternWords(rule.pattern) > inner.prefixLength,
  );
  if (inner.prefixLength > 0 && !namesMoreThanWrapper && rulesFor(inner.words).length === 0) return { covered: false };
  for (const nested of inner.commands) {
    const coverage =
      depth < 5
        ? allowCoverage({ words: nested, writesFile: false }, rulesFor, depth + 1)
        : { covered: false as const };
    if (!coverage.covered) return coverage;
  }
  return { covered: true };
}

function patternWords(pattern: string): number {
  return pattern.replace(/:\*$/, "").trim().split(/\s+/).length;
}

/**
 * The absolute glob a path pattern stands for, with gitignore's meaning, which Claude Code's Read
 * and Edit rules follow (https://code.claude.com/docs/en/permissions, "Read and Edit": "Read and
 * Edit rules both follow the gitignore specification"), and ours too, so one pattern means one
 * thing in either file: `~/` is the home folder; a pattern with no slash but at its end
 * (`*.pem`, `.env`, `build/`) matches at any depth below the workspace, as a `.gitignore` line
 * at its root does; any other relative pattern (`src/*.ts`, `./.env`) starts at the workspace
 * and is anchored there. Claude Code's `//abs` and `/in-project` forms were made absolute when
 * the rule was read (claudePath).
 */
export function ruleGlob(pattern: string, where: { workspace: string; home: string }): string {
  if (pattern === "~" || pattern.startsWith("~/")) return path.join(where.home, pattern.slice(1));
  if (path.isAbsolute(pattern)) return pattern;
  const isAnyDepth = !pattern.replace(/\/+$/, "").includes("/");
  return path.join(where.workspace, isAnyDepth ? `**/${pattern}` : pattern);
}

/**
 * Whether a path pattern (ruleGlob) covers an absolute path: `**` crosses folders, `*` and `?`
 * stay within one name, and a pattern naming a folder covers everything inside it.
 */
export function pathMatches(pattern: string, absolute: string, where: { workspace: string; home: string }): boolean {
  return globCovers(ruleGlob(pattern, where), absolute);
}

/**
 * What deny and ask rules on reading name (`Read(./.env)`, `Read(*.pem)`, `read_file(~/notes/x)`),
 * as absolute paths or globs: a recursive read (grep, glob, list_files) never enters or shows
 * them (ToolContext.unwalked), so a grep over the folder does not show what read_file may not.
 */
export function deniedReadPaths(deny: Rule[], where: { workspace: string; home: string }): string[] {
  return deny
    .filter((rule) => FILE_READING_RULE_TOOLS.includes(rule.tool) && rule.pattern !== undefined)
    .map((rule) => ruleGlob(rule.pattern as string, where));
}
