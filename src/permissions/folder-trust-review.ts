// What a folder's project settings would do, read for folder trust's question, report and record
// (folder-trust.ts): each project settings file as it is now, and one line per hook, MCP server,
// allow rule and skill it would bring. Project files are an attacker's text: what is shown of
// them is made printable here.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { mcpJsonServers, projectMcpPath, wouldRunOfServer } from "../settings/mcp-servers.ts";
import {
  parseSettingsText,
  SettingsError,
  type SettingsSource,
  settingsSources,
  wouldRunOf,
} from "../settings/settings-file.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { realOrSame } from "../shared/real-path.ts";

/** Bytes of a project file read; a larger one (or one that is not a regular file) cannot be trusted by its contents. */
const MAX_PROJECT_FILE_BYTES = 256 * 1024;
/** One project settings file as it is now. */
export interface ProjectFile {
  path: string;
  /** As shown to the person: relative to the working directory. */
  shown: string;
  content: string;
  sha256: string;
}

/** What a folder's project settings would do, for the question, the report and the record. */
export interface TrustReview {
  /** The real path of the working directory: what is trusted. */
  folder: string;
  files: ProjectFile[];
  /** One line per hook, MCP server, allow rule and skill (`hook PreToolUse bash: ./check.sh`), grouped by file. */
  wouldRun: { file: string; items: string[] }[];
  counts: { hooks: number; servers: number; allowRules: number; skills: number };
  /** Settings files `trustedFolders` does not cover, each with the reason (shown relative to the folder). */
  notCoveredByName?: string[];
  /**
   * The language servers that would run or read this folder's own code, with what trust changes
   * (languageServerLines): said in the question, never a reason to ask it.
   */
  languageServers: string[];
  /** Present when a recorded trust no longer holds: the change, as unified diffs. */
  changed?: { diff: string; files: string[] };
}

/** A project skill as the review names it. */
export interface ProjectSkill {
  name: string;
  /** Its SKILL.md. */
  path: string;
}

/** The project settings files of a folder and what they would run. */
export function reviewProjectSettings(
  cwd: string,
  harnessHome: string,
  skills: ProjectSkill[] = [],
  home?: string,
): TrustReview {
  const folder = realOrSame(cwd);
  // The files the loaders read: settings-file.ts's project sources (rules, hooks) and mcp-servers.ts's .mcp.json.
  const sources = settingsSources(cwd, harnessHome, home ? { HOME: home } : process.env).project;
  const files = [...sources.map((source) => source.path), projectMcpPath(cwd)]
    .filter((file) => existsSync(file))
    .map((file) => readProjectFile(file, cwd));
  const wouldRun: TrustReview["wouldRun"] = [];
  const counts = { hooks: 0, servers: 0, allowRules: 0, skills: 0 };
  for (const file of files) {
    const source = sources.find((candidate) => candidate.path === file.path);
    const items = source ? describeSettings(file, source, counts) : describeMcp(file, counts);
    if (items.length > 0)
      wouldRun.push({ file: printable(file.shown, ""), items: items.map((item) => printable(item)) });
  }
  for (const skill of skills) {
    const file = readProjectFile(skill.path, cwd);
    files.push(file);
    counts.skills++;
    wouldRun.push({ file: printable(file.shown, ""), items: [printable(`skill ${skill.name}`)] });
  }
  return { folder, files, wouldRun, counts, languageServers: languageServerLines(cwd) };
}

/** The tsconfig.json plugins' names shown, at most (a long list is counted). */
const MAX_PLUGINS_NAMED = 5;

/**
 * What the built-in language servers would take from this folder (src/lsp): typescript-language-server
 * runs the workspace's own TypeScript, and that loads the plugins its tsconfig.json names, only in a
 * trusted folder (elsewhere it is pinned to the TypeScript installed with the server:
 * src/lsp/untrusted-folder.ts); pyright runs the `python` on PATH to find its packages, trusted
 * or not, which is the folder's own environment (its `.pth` files run) when that is active.
 */
function languageServerLines(cwd: string): string[] {
  const lines: string[] = [];
  const tsserver = path.join("node_modules", "typescript", "lib", "tsserver.js");
  const plugins = tsconfigPlugins(path.join(cwd, "tsconfig.json"));
  if (existsSync(path.join(cwd, tsserver)) || plugins.length > 0) {
    const named = plugins.slice(0, MAX_PLUGINS_NAMED).map((name) => printable(name, ""));
    if (plugins.length > MAX_PLUGINS_NAMED) named.push(`${plugins.length - MAX_PLUGINS_NAMED} more`);
    const what = [
      existsSync(path.join(cwd, tsserver)) ? `this folder's own TypeScript (${tsserver})` : "",
      plugins.length > 0 ? `the TypeScript plugins tsconfig.json names (${named.join(", ")})` : "",
    ].filter(Boolean);
    lines.push(
      `typescript-language-server runs ${what.join(" and ")} if you trust it (else the TypeScript installed with the server)`,
    );
  }
  const environment = [".venv", "venv", "env"].find((dir) => existsSync(path.join(cwd, dir, "pyvenv.cfg")));
  if (environment)
    lines.push(
      `pyright runs the python on PATH for its packages, trusted or not (this folder's ${environment} when it is active)`,
    );
  return lines;
}

/** The names of the plugins tsconfig.json's compilerOptions list (read loosely: it may have comments). */
function tsconfigPlugins(file: string): string[] {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_PROJECT_FILE_BYTES) return [];
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const list = /"plugins"\s*:\s*\[([\s\S]*?)\]/.exec(text)?.[1] ?? "";
  return [...list.matchAll(/"name"\s*:\s*"([^"]*)"/g)].map((match) => match[1]);
}

function readProjectFile(file: string, cwd: string): ProjectFile {
  let content: string;
  try {
    const stat = statSync(file);
    content = !stat.isFile()
      ? "[not a regular file]"
      : stat.size > MAX_PROJECT_FILE_BYTES
        ? `[${stat.size} bytes: too large to review]`
        : readFileSync(file, "utf8");
  } catch (error) {
    content = `[unreadable: ${(error as NodeJS.ErrnoException).code ?? "error"}]`;
  }
  return {
    path: file,
    shown: path.relative(cwd, file) || file,
    content,
    sha256: createHash("sha256").update(content).digest("hex"),
  };
}

/**
 * The lines saying what a settings file would run, from the same typed sections the loaders
 * use (settings-file.ts wouldRunOf); a file that cannot be read is one line (it could hold anything).
 */
function describeSettings(file: ProjectFile, source: SettingsSource, counts: TrustReview["counts"]): string[] {
  let items;
  try {
    items = wouldRunOf(parseSettingsText(file.content, source), file.path);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return file.content.trim() ? ["(not valid settings: not used, but its contents are what you would trust)"] : [];
  }
  for (const item of items) counts[item.kind === "hook" ? "hooks" : "allowRules"]++;
  return items.map((item) => item.text);
}

/**
 * The lines saying what a .mcp.json would start, from the typed records the loader starts them
 * from (settings/mcp-servers.ts wouldRunOfServer: command, arguments, every `env` variable with
 * its value, `cwd`). An entry the loader skips is a line saying so; its text is still what the
 * person would trust.
 */
function describeMcp(file: ProjectFile, counts: TrustReview["counts"]): string[] {
  if (!file.content.trim()) return [];
  const { servers, problems } = mcpJsonServers(file.content, file.shown);
  const items: string[] = [];
  for (const server of servers) {
    counts.servers++;
    items.push(...wouldRunOfServer(server));
  }
  return [
    ...items,
    ...problems.map((problem) => `(${showControlChars(problem, "")}: not used, but its text is what you would trust)`),
  ];
}

/**
 * Project files are an attacker's text: every control character (and bidirectional override) is
 * shown as an escape (`\e`), never sent to the terminal; `keep` is what a multi-line hook command
 * or diff keeps (newline and tab), and a file name keeps nothing.
 */
export function printable(text: string, keep = "\n\t"): string {
  return showControlChars(text, keep);
}
