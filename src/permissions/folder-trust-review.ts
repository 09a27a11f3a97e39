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
  return { folder, files, wouldRun, counts };
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
