// The one reader of settings.json files: harness's own (`$HARNESS_HOME/settings.json`,
// `.harness/settings.json`) and Claude Code's (`~/.claude/settings.json`,
// `.claude/settings.json`, `.claude/settings.local.json`). Each section has its schema in
// sections.ts; the permission layer, the hooks and the trust question all read a file through
// this module, so a new key is one entry there, and a key that runs code says so in its `wouldRun`.
//
// Error policy, one for every file: not valid JSON, a wrong type, or an unknown key in
// harness's own file or inside `permissions` is a SettingsError (the run stops, exit 2), naming
// the file, the entry and the nearest valid key. The `hooks` section is tolerant
// (hook-section.ts). In Claude's files, keys of Claude Code that harness does not use are
// either listed below as not applicable (UI, account and model choices: silent) or reported in
// one notice line (they would change what runs or what is protected); a key neither harness
// nor Claude Code has is reported too, with the nearest one, but does not stop the run, since
// Claude Code grows keys faster than harness can learn them.

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { foldersFromRoot } from "../core/system-prompt.ts";
import { debugLog } from "../shared/debug-log.ts";
import { describeIssue } from "../shared/describe-issue.ts";
import { closestName } from "../shared/edit-distance.ts";
import { editorShape, readShape, type WouldRun, wouldRunOfSections } from "./sections.ts";

export type { WouldRun };

/** A settings file that cannot be used; the message names the file and the field. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/** Whose words a file is in: harness's, or Claude Code's (its rules' paths read as Claude reads them). */
export type SettingsDialect = "harness" | "claude";

/** One settings file to read. */
export interface SettingsSource {
  path: string;
  dialect: SettingsDialect;
  /** The user's own file (not one a cloned repository or the model may have written). */
  isUser: boolean;
}

/** Claude Code's `permissions` keys harness does not take, each with why (reported when present). */
const CLAUDE_PERMISSION_KEYS: Record<string, string> = {
  defaultMode:
    "the approval mode is --approve's or permissionMode's; only plan is taken from it (a project file must not widen it)",
  disableBypassPermissionsMode: "harness has no bypass mode to disable",
};

/** harness's settings.json, as read: every section of sections.ts, and no other key. */
const harnessSchema = z.strictObject(readShape());

/**
 * Claude Code's top-level keys harness knowingly does not use, silently: they choose Claude's
 * model, look, account or telemetry, none of which guards or runs anything here.
 */
const CLAUDE_NOT_APPLICABLE = new Set([
  "model",
  "statusLine",
  "outputStyle",
  "cleanupPeriodDays",
  "includeCoAuthoredBy",
  "attribution",
  "spinnerTipsEnabled",
  "alwaysThinkingEnabled",
  "forceLoginMethod",
  "forceLoginOrgUUID",
  "companyAnnouncements",
  "enabledPlugins",
  "extraKnownMarketplaces",
  "language",
  "showTurnDuration",
  "terminalProgressBarEnabled",
  "feedbackSurveyRate",
  "awsAuthRefresh",
  "awsCredentialExport",
  "otelHeadersHelper",
  "plansDirectory",
  "respectGitignore",
  "fileSuggestion",
]);

/** Claude Code's keys that would change what runs or what is protected: harness does not take them, and says so. */
const CLAUDE_REPORTED: Record<string, string> = {
  env: "variables for Claude Code's own process",
  apiKeyHelper: "harness takes keys from its environment and config.json",
  disableAllHooks: "remove the hooks instead",
  enableAllProjectMcpServers: "a project's .mcp.json servers run once the folder is trusted",
  enabledMcpjsonServers: "a project's .mcp.json servers run once the folder is trusted",
  disabledMcpjsonServers: "a project's .mcp.json servers run once the folder is trusted",
};

/** A file's sections as harness uses them. */
export interface SettingsData {
  permissions: { allow: string[]; deny: string[]; ask: string[]; additionalDirectories: string[] };
  /** `permissionMode`, or Claude Code's `permissions.defaultMode: "plan"`. */
  permissionMode?: "ask" | "edits" | "plan" | "all";
  sandbox?: { enabled?: boolean; network?: boolean | "off" | "on" | string[]; deniedDomains?: string[] };
  env?: { passthrough?: string[]; strip?: string[] };
  trustedFolders?: string[];
  /** The `hooks` section as written; hook-section.ts reads it. */
  hooks?: unknown;
  /** Sentences for stderr: keys not taken. */
  notices: string[];
  /** The sections as parsed, for what they would run (wouldRunOf). */
  sections: z.output<typeof harnessSchema>;
}

/** The settings files, the user's first, then the project's from the repository root down to `cwd`. */
export function settingsSources(
  cwd: string,
  harnessHome: string,
  env: Record<string, string | undefined>,
): { user: SettingsSource[]; project: SettingsSource[] } {
  // Where Claude Code keeps the user's settings: CLAUDE_CONFIG_DIR, as Claude Code reads it, or ~/.claude.
  const claudeHome = env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homedir(), ".claude");
  const user: SettingsSource[] = [
    { path: path.join(harnessHome, "settings.json"), dialect: "harness", isUser: true },
    { path: path.join(claudeHome, "settings.json"), dialect: "claude", isUser: true },
  ];
  const isUserFile = (file: string) => user.some((source) => source.path === file);
  // In one folder Claude's files come first and .harness's last, so harness's own hooks run last.
  const project = foldersFromRoot(cwd)
    .flatMap((folder): SettingsSource[] => [
      { path: path.join(folder, ".claude", "settings.json"), dialect: "claude", isUser: false },
      { path: path.join(folder, ".claude", "settings.local.json"), dialect: "claude", isUser: false },
      { path: path.join(folder, ".harness", "settings.json"), dialect: "harness", isUser: false },
    ])
    .filter((source) => !isUserFile(source.path));
  return { user, project };
}

/** Reads one file; undefined when it does not exist. Throws SettingsError. */
export function readSettingsFile(source: SettingsSource): SettingsData | undefined {
  if (!existsSync(source.path)) return undefined;
  debugLog("settings", `reading ${source.path} (${source.dialect}, ${source.isUser ? "the user's" : "the project's"})`);
  return parseSettingsText(readFileSync(source.path, "utf8"), source);
}

/** Parses a file's text by its dialect's schema. Throws SettingsError. */
export function parseSettingsText(text: string, source: SettingsSource): SettingsData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${source.path}: not valid JSON (${(error as Error).message}); fix or remove the file`);
  }
  const notices: string[] = [];
  const taken = source.dialect === "claude" ? claudeView(json, source.path, notices) : json;
  const parsed = harnessSchema.safeParse(taken);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => describeIssue(issue, Object.keys(harnessSchema.shape)));
    throw new SettingsError(`${source.path}: ${problems.join("; ")}`);
  }
  const { permissions = {}, sandbox, env, trustedFolders, hooks, permissionMode } = parsed.data;
  return {
    permissions: {
      allow: permissions.allow ?? [],
      deny: permissions.deny ?? [],
      ask: permissions.ask ?? [],
      additionalDirectories: permissions.additionalDirectories ?? [],
    },
    permissionMode,
    sandbox,
    env,
    trustedFolders,
    hooks,
    notices,
    sections: parsed.data,
  };
}

/** The part of a Claude Code file harness takes (`permissions`, `hooks`, `$schema`), the rest noted or known not to apply. */
function claudeView(json: unknown, file: string, notices: string[]): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const taken: Record<string, unknown> = {};
  const reported: string[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (key === "$schema" || key === "hooks") taken[key] = value;
    else if (key === "permissions") {
      taken[key] = claudePermissions(value, reported);
      // Claude Code's plan mode is harness's: the one default mode taken (it only narrows).
      if ((value as { defaultMode?: unknown }).defaultMode === "plan") taken.permissionMode = "plan";
    } else if (key === "sandbox") taken[key] = claudeSandbox(value, reported);
    else if (key in CLAUDE_REPORTED) reported.push(`${key} (${CLAUDE_REPORTED[key]})`);
    else if (!CLAUDE_NOT_APPLICABLE.has(key)) {
      const known = ["permissions", "hooks", "sandbox", ...Object.keys(CLAUDE_REPORTED), ...CLAUDE_NOT_APPLICABLE];
      const meant = closestName(key, known, 2);
      notices.push(
        `${file}: unknown key "${key}"${meant ? ` (did you mean "${meant}"?)` : ""}: neither harness nor Claude Code knows it; it is ignored`,
      );
    }
  }
  if (reported.length > 0)
    notices.push(`${file}: harness does not use ${reported.join(", ")}; see docs/claude-code.md`);
  return taken;
}

function claudePermissions(value: unknown, reported: string[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === "defaultMode" && entry === "plan") continue;
    if (key in CLAUDE_PERMISSION_KEYS) reported.push(`permissions.${key} (${CLAUDE_PERMISSION_KEYS[key]})`);
    else kept[key] = entry;
  }
  return kept;
}

/**
 * Claude Code's `sandbox` section: `network.allowedDomains` and `network.deniedDomains` mean
 * here what they mean there (https://docs.claude.com/en/docs/claude-code/settings, "Sandbox
 * settings": domains, `*.` wildcards, an optional `:port`), so they are taken as harness's
 * `sandbox.network` list and `sandbox.deniedDomains`; the rest is Claude's own sandbox (its
 * on/off switch, unix sockets, its proxy's ports, excluded commands) and is reported.
 */
function claudeSandbox(value: unknown, reported: string[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const taken: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== "network" || typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      reported.push(`sandbox.${key} (harness's sandbox is set in its own settings.json; docs/network.md)`);
      continue;
    }
    for (const [networkKey, networkEntry] of Object.entries(entry)) {
      if (networkKey === "allowedDomains") taken.network = networkEntry;
      else if (networkKey === "deniedDomains") taken.deniedDomains = networkEntry;
      else reported.push(`sandbox.network.${networkKey} (Claude Code's own proxy; docs/network.md)`);
    }
  }
  return taken;
}

/**
 * What a file's sections would run or widen once the folder is trusted (each section's
 * `wouldRun`, sections.ts): a new key that runs code says so there, and the trust question shows it.
 */
export function wouldRunOf(data: SettingsData, file: string): WouldRun[] {
  return wouldRunOfSections(data.sections, file);
}

/** The JSON Schema of harness's settings.json, for editors (docs/settings.schema.json; scripts/write-settings-schema.ts). */
export function settingsJsonSchema(): Record<string, unknown> {
  return {
    title: "harness settings.json",
    ...z.toJSONSchema(z.strictObject(editorShape()), {
      target: "draft-2020-12",
      io: "input",
    }),
  };
}
