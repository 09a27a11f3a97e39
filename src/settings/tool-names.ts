// Claude Code's tool names are harness's too: ONE table from Claude's names to ours, read by the
// permission rules (permissions/rules.ts), the hook matchers and payloads (hooks/), and the
// check that every name in a settings file can match something (check-names.ts). README's
// "Claude Code's names" table says the same in words; where the two tools differ on purpose,
// the `note` says why.
import { resolve } from "node:path";

/** What a rule's pattern is matched against for a tool: a command, a host, a path, or nothing (no pattern allowed). */
export type SpecifierKind = "command" | "domain" | "path" | "none";

/** One of Claude Code's tool names, and what it means here. */
export interface ClaudeTool {
  /** The harness tool a hook matcher or `tool_name` means; undefined: harness has no such tool (it matches nothing). */
  harness?: string;
  /**
   * What a permission rule with this name covers when it differs from `harness`: Claude applies
   * `Read(...)` rules to every file-reading tool and `Edit(...)` rules to every file-editing one,
   * which are harness's `read` and `edit` groups.
   */
  ruleTool?: string;
  /** Claude's names for the input fields whose harness name differs (`path` is Claude's `file_path`). */
  inputFields?: Record<string, string>;
  note?: string;
}

/** Claude Code's built-in tools (https://code.claude.com/docs/en/settings#tools-available-to-claude). */
export const CLAUDE_TOOLS: Record<string, ClaudeTool> = {
  Bash: { harness: "bash" },
  BashOutput: { harness: "bash_output" },
  KillShell: { harness: "bash_kill" },
  Read: { harness: "read_file", ruleTool: "read", inputFields: { path: "file_path" } },
  Write: { harness: "write_file", inputFields: { path: "file_path" } },
  Edit: { harness: "edit_file", ruleTool: "edit", inputFields: { path: "file_path" } },
  MultiEdit: {
    harness: "edit_file",
    inputFields: { path: "file_path" },
    note: "edit_file makes one replacement per call; a MultiEdit hook sees edit_file's single old_string/new_string",
  },
  Glob: { harness: "glob" },
  Grep: { harness: "grep" },
  LS: { harness: "list_files" },
  WebFetch: { harness: "web_fetch" },
  Task: { harness: "task", note: "Task(agent) is not a rule: harness cannot match a subagent by name" },
  TodoWrite: { harness: "todo" },
  NotebookEdit: { note: "harness has no notebook tool: the name matches nothing (a deny holds trivially)" },
  NotebookRead: { note: "harness has no notebook tool" },
  WebSearch: { note: "harness has no web search tool" },
  ExitPlanMode: { harness: "exit_plan_mode" },
  // Claude Code's LSP tool takes `filePath` (anthropics/claude-code#21655); harness's lsp tool has
  // the same operation names and is offered only where a language server can run.
  LSP: { harness: "lsp", inputFields: { path: "filePath" } },
  SlashCommand: { note: "custom commands are the person's, not the model's, in harness" },
};

/** Our name for a tool a Claude Code file names (`Read` -> read_file, in Claude's exact case); any other name as written. */
export function harnessToolName(name: string): string {
  return (Object.hasOwn(CLAUDE_TOOLS, name) ? CLAUDE_TOOLS[name].harness : undefined) ?? name;
}

/**
 * The rule tools whose deny on a path keeps recursive reads out of it too (permissions/rules.ts
 * deniedReadPaths): the read group and each tool that reads files.
 */
export const FILE_READING_RULE_TOOLS: readonly string[] = ["read", "read_file", "grep", "glob", "list_files"];

/** The built-in tools, and what a pattern in a rule on each is matched against (a library's or MCP server's tool is not listed). */
const SPECIFIERS: Record<string, SpecifierKind> = {
  bash_output: "none",
  bash_kill: "none",
  task: "none",
  todo: "none",
  exit_plan_mode: "none",
  bash: "command",
  web_fetch: "domain",
  read: "path",
  edit: "path",
  read_file: "path",
  write_file: "path",
  edit_file: "path",
  glob: "path",
  grep: "path",
  list_files: "path",
  lsp: "path",
};

/** The built-in tools' names, whether or not a session has each (the task tool comes and goes with subagents). */
export const BUILT_IN_TOOLS = Object.keys(SPECIFIERS).filter((name) => name !== "read" && name !== "edit");

/**
 * What a pattern of a rule on this (harness, lower-case) tool is matched against; undefined for
 * a tool not built in: an MCP server's takes none, a library's file tool its paths.
 */
export function specifierOf(tool: string): SpecifierKind | undefined {
  return SPECIFIERS[tool];
}

/** The model-facing name of an MCP server's tool: `server__tool`, limited to what providers accept (OpenAI: 64 of [a-zA-Z0-9_-]). */
export function mcpToolName(server: string, tool: string): string {
  return `${cleanName(server)}__${cleanName(tool)}`.slice(0, 64);
}

/** Whether a tool name is an MCP server's (`server__tool`): no built-in tool has `__` in its name. */
export function isMcpToolName(name: string): boolean {
  return name.includes("__");
}

function cleanName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** A rule's tool part, resolved: one harness tool or group (lower case), or every tool of an MCP server. */
export type RuleTarget = { tool: string; server?: undefined } | { server: string; tool?: undefined };

/**
 * `Write` -> write_file, `Read` -> the read group, `mcp__srv__tool` -> srv__tool, `mcp__srv` and
 * `mcp__srv__*` -> every tool of srv; any other name (harness's own, `srv__tool`) as written,
 * in lower case, as rules always were. Whether it names a real tool is check-names.ts's question.
 */
export function resolveRuleTool(written: string): RuleTarget {
  const mcp = /^mcp__(.+?)(?:__(.+))?$/.exec(written);
  if (mcp) {
    const server = cleanName(mcp[1]).toLowerCase();
    return mcp[2] === undefined || mcp[2] === "*" ? { server } : { tool: mcpToolName(mcp[1], mcp[2]).toLowerCase() };
  }
  const claude = claudeToolOf(written);
  if (claude) return { tool: (claude.ruleTool ?? claude.harness ?? written).toLowerCase() };
  return { tool: written.toLowerCase() };
}

/** A Claude tool by name, case aside (rules were always case-insensitive). */
function claudeToolOf(written: string): ClaudeTool | undefined {
  const name = Object.keys(CLAUDE_TOOLS).find((key) => key.toLowerCase() === written.toLowerCase());
  return name === undefined ? undefined : CLAUDE_TOOLS[name];
}

/** Whether a (lower-case) rule tool is one of Claude's that harness lacks: it matches nothing, and that is fine. */
export function isAbsentClaudeTool(tool: string): boolean {
  const claude = claudeToolOf(tool);
  return claude !== undefined && claude.harness === undefined;
}

/** Claude's name for a harness tool (`write_file` -> `Write`, `srv__x` -> `mcp__srv__x`), or ours when Claude has none. */
export function claudeNameOf(harnessName: string): string {
  if (isMcpToolName(harnessName)) return `mcp__${harnessName}`;
  return Object.entries(CLAUDE_TOOLS).find(([, claude]) => claude.harness === harnessName)?.[0] ?? harnessName;
}

/** Every name a hook matcher is tested against for a tool: ours, and each of Claude's (`edit_file`: Edit, MultiEdit). */
export function namesOfTool(harnessName: string): string[] {
  if (isMcpToolName(harnessName)) return [harnessName, `mcp__${harnessName}`];
  const claude = Object.entries(CLAUDE_TOOLS)
    .filter(([, tool]) => tool.harness === harnessName)
    .map(([name]) => name);
  return [harnessName, ...claude];
}

/**
 * The input as Claude's hooks read it: ours, with Claude's field names beside (`file_path` beside
 * `path`). Claude's `file_path` is always absolute (its tools take only absolute paths), so a
 * copied guard such as `case "$file_path" in /home/*)` sees the same: ours is resolved against `cwd`.
 */
export function withClaudeFields(harnessName: string, input: unknown, cwd: string): unknown {
  const fields = fieldsOf(harnessName);
  if (!fields || typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  const claudeValue = (theirs: string, value: unknown) =>
    theirs === "file_path" && typeof value === "string" && !value.startsWith("~") ? resolve(cwd, value) : value;
  const added = Object.fromEntries(
    Object.entries(fields)
      .filter(([ours]) => ours in record)
      .map(([ours, theirs]) => [theirs, claudeValue(theirs, record[ours])]),
  );
  return { ...record, ...added };
}

/**
 * Arguments a hook sent back, in harness's names: a Claude field the hook changed wins over
 * ours, and the Claude names are dropped (`sent` is what the hook was given).
 */
export function fromClaudeFields(harnessName: string, updated: unknown, sent: unknown): unknown {
  const fields = fieldsOf(harnessName);
  if (!fields || typeof updated !== "object" || updated === null || Array.isArray(updated)) return updated;
  const result = { ...(updated as Record<string, unknown>) };
  const before = (sent ?? {}) as Record<string, unknown>;
  for (const [ours, theirs] of Object.entries(fields)) {
    if (!(theirs in result)) continue;
    if (!(ours in result) || result[theirs] !== before[theirs]) result[ours] = result[theirs];
    delete result[theirs];
  }
  return result;
}

function fieldsOf(harnessName: string): Record<string, string> | undefined {
  return Object.values(CLAUDE_TOOLS).find((tool) => tool.harness === harnessName && tool.inputFields)?.inputFields;
}

/**
 * A hook matcher as Claude Code reads it (https://code.claude.com/docs/en/hooks#matcher-patterns):
 * `""`, `"*"` or none match every tool; only letters, digits, `_` and `|` is a list of exact
 * names (`Edit|MultiEdit|Write`); anything else is a JavaScript regular expression found
 * anywhere in the name (`mcp__github__.*`, `^Notebook`). Harness used to anchor a regex to the
 * whole name; Claude's reading is taken so a copied matcher means what its author meant.
 * Returns the test over a tool's names, or the regex's error.
 */
export function compileMatcher(matcher: string | undefined): ((names: string[]) => boolean) | { error: string } {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) {
    const wanted = new Set(matcher.split("|").filter(Boolean));
    return (names) => names.some((name) => wanted.has(name));
  }
  try {
    const regex = new RegExp(matcher);
    return (names) => names.some((name) => regex.test(name));
  } catch (error) {
    return { error: `not a valid regular expression (${(error as Error).message})` };
  }
}

/** The exact names a plain matcher lists (`Edit|Wirte` -> both), for the typo check; none for a regex or a wildcard. */
export function plainMatcherNames(matcher: string | undefined): string[] {
  if (matcher === undefined || matcher === "*" || !/^[A-Za-z0-9_|]+$/.test(matcher)) return [];
  return matcher.split("|").filter(Boolean);
}
