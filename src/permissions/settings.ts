// Settings files: `$HARNESS_HOME/settings.json` (the user's) and `.harness/settings.json` in
// the working directory and its parents up to the repository root (the project's).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseRule, type Rule } from "./rules.ts";
import { describeIssue } from "../core/describe-issue.ts";
import { foldersFromRoot } from "../core/system-prompt.ts";

/** A settings file that cannot be used; the message names the file and the field. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

const ruleList = z.array(z.string()).optional();

/**
 * A settings file. Unknown keys are errors at every level, so a typo (`"permisions"`) is not
 * silently ignored along with the rules it held; `hooks` belongs to hooks/settings.ts.
 */
const SettingsFile = z.strictObject({
  $schema: z.string().optional(),
  permissions: z
    .strictObject({
      allow: ruleList.describe("rules that run without asking"),
      deny: ruleList.describe("rules that never run"),
    })
    .optional(),
  sandbox: z
    .strictObject({
      enabled: z.boolean().optional(),
      network: z.boolean().optional(),
    })
    .optional(),
  env: z
    .strictObject({
      passthrough: z
        .array(z.string())
        .optional()
        .describe(
          "variables kept in the environment of commands, hooks and MCP servers although they look like credentials",
        ),
      strip: z.array(z.string()).optional().describe("more variables removed from it"),
    })
    .optional(),
  trustedFolders: z
    .array(z.string())
    .optional()
    .describe("folders whose project settings apply without asking (`~/src/app`, `~/work/**`); the user's file only"),
  hooks: z.unknown().optional().describe("checked by hooks/settings.ts"),
});
type SettingsFile = z.infer<typeof SettingsFile>;

/** All settings files merged: rules add up; the user's file alone may loosen the sandbox. */
export interface Settings {
  /** The user's allow rules; a project's are in `projectAllow`, used only in a trusted folder. */
  allow: Rule[];
  projectAllow: Rule[];
  deny: Rule[];
  /** Absent: not set anywhere (the default applies). */
  sandboxEnabled?: boolean;
  network?: boolean;
  passthrough: string[];
  strip: string[];
  /** From the user's file: folders trusted without asking (folder-trust.ts). */
  trustedFolders: string[];
  /** Files read, user's first. */
  files: string[];
  /** Settings that were ignored, each a sentence for stderr. */
  ignored: string[];
}

/** A project's settings files: `.harness/settings.json` from the repository root down to `cwd` (never the user's own). */
export function projectSettingsPaths(cwd: string, harnessHome: string): string[] {
  const userFile = path.join(harnessHome, "settings.json");
  return foldersFromRoot(cwd)
    .map((folder) => path.join(folder, ".harness", "settings.json"))
    .filter((file) => file !== userFile);
}

/**
 * Reads and merges the settings files. A project file (which a cloned repository or the model
 * itself may have written) can add deny rules and tighten the sandbox at once; its allow rules
 * wait for folder trust (`projectAllow`); it cannot turn the sandbox or its network block off,
 * pass credentials through or trust folders: those lines are ignored with a notice, because
 * only the user may loosen the sandbox.
 */
export function loadSettings(cwd: string, harnessHome: string): Settings {
  const settings: Settings = {
    allow: [],
    projectAllow: [],
    deny: [],
    passthrough: [],
    strip: [],
    trustedFolders: [],
    files: [],
    ignored: [],
  };
  const userFile = path.join(harnessHome, "settings.json");
  for (const file of [userFile, ...projectSettingsPaths(cwd, harnessHome)]) {
    const parsed = readSettingsFile(file);
    if (!parsed) continue;
    settings.files.push(file);
    const isUser = file === userFile;
    const rules = (list: string[] | undefined, field: string) =>
      (list ?? []).map((text, index) => {
        const rule = parseRule(text, file, isUser);
        if (typeof rule === "string") throw new SettingsError(`${file}: permissions.${field}[${index}]: ${rule}`);
        return rule;
      });
    (isUser ? settings.allow : settings.projectAllow).push(...rules(parsed.permissions?.allow, "allow"));
    settings.deny.push(...rules(parsed.permissions?.deny, "deny"));
    settings.strip.push(...(parsed.env?.strip ?? []));
    const { enabled, network } = parsed.sandbox ?? {};
    if (isUser) {
      settings.sandboxEnabled = enabled ?? settings.sandboxEnabled;
      settings.network = network ?? settings.network;
      settings.passthrough.push(...(parsed.env?.passthrough ?? []));
      settings.trustedFolders.push(...(parsed.trustedFolders ?? []));
      continue;
    }
    if (enabled === false)
      settings.ignored.push(
        `${file}: sandbox.enabled false is ignored (only ${userFile} or --sandbox off can turn the sandbox off)`,
      );
    if (network === true)
      settings.ignored.push(
        `${file}: sandbox.network true is ignored (only ${userFile} or --allow-network can allow the network)`,
      );
    if (network === false) settings.network = false;
    if (parsed.env?.passthrough?.length)
      settings.ignored.push(`${file}: env.passthrough is ignored (only ${userFile} can pass credentials to commands)`);
    if (parsed.trustedFolders?.length)
      settings.ignored.push(`${file}: trustedFolders is ignored (only ${userFile} can trust folders)`);
  }
  return settings;
}

function readSettingsFile(file: string): SettingsFile | undefined {
  if (!existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SettingsError(`${file}: not valid JSON (${(error as Error).message}); fix or remove the file`);
  }
  const parsed = SettingsFile.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => describeIssue(issue, Object.keys(SettingsFile.shape)));
  throw new SettingsError(`${file}: ${problems.join("; ")}`);
}
