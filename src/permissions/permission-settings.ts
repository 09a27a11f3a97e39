// The permission part of the settings files (read by settings/settings-file.ts): the user's
// `$HARNESS_HOME/settings.json` and `~/.claude/settings.json`, and the project's
// `.claude/settings.json`, `.claude/settings.local.json` and `.harness/settings.json` in the
// working directory and its parents up to the repository root, merged.
import { homedir } from "node:os";
import path from "node:path";
import { readSettingsFile, SettingsError, type SettingsSource, settingsSources } from "../settings/settings-file.ts";
import { addNetworkSettings, emptyNetworkSettings, type NetworkSettings } from "./network-settings.ts";
import { parseRule, type Rule } from "./rules.ts";

export { SettingsError };

/** All settings files merged: rules add up; the user's file alone may loosen the sandbox. */
export interface Settings {
  /** The user's allow rules; a project's are in `projectAllow`, used only in a trusted folder. */
  allow: Rule[];
  projectAllow: Rule[];
  deny: Rule[];
  /**
   * Every file's ask rules: like deny rules they only narrow (a call asks that would have run),
   * so a project's apply without folder trust.
   */
  ask: Rule[];
  /** The user's `permissions.additionalDirectories`; a project's are in `projectDirectories`, used only in a trusted folder. */
  directories: string[];
  projectDirectories: string[];
  /** The approval mode the files choose (`permissionMode`); absent: `ask` unless a flag chooses. */
  permissionMode?: "ask" | "edits" | "plan" | "all";
  /** Absent: not set anywhere (the default applies). */
  sandboxEnabled?: boolean;
  /** `sandbox.network` and `sandbox.deniedDomains` of every file (network-settings.ts). */
  network: NetworkSettings;
  passthrough: string[];
  strip: string[];
  /** From the user's file: folders trusted without asking (folder-trust.ts). */
  trustedFolders: string[];
  /** Files read, user's first. */
  files: string[];
  /** Settings that were ignored, each a sentence for stderr. */
  ignored: string[];
}

/**
 * Reads and merges the settings files. A project file (which a cloned repository or the model
 * itself may have written) can add deny and ask rules and tighten the sandbox at once; its allow rules
 * wait for folder trust (`projectAllow`); it cannot turn the sandbox or its network block off,
 * pass credentials through or trust folders: those lines are ignored with a notice, because
 * only the user may loosen the sandbox.
 */
export function loadSettings(cwd: string, harnessHome: string, env: Record<string, string | undefined>): Settings {
  const settings: Settings = {
    allow: [],
    projectAllow: [],
    deny: [],
    ask: [],
    directories: [],
    projectDirectories: [],
    passthrough: [],
    strip: [],
    trustedFolders: [],
    files: [],
    ignored: [],
    network: emptyNetworkSettings(),
  };
  const userFile = path.join(harnessHome, "settings.json");
  const sources = settingsSources(cwd, harnessHome, env);
  for (const source of [...sources.user, ...sources.project]) {
    const parsed = readSettingsFile(source);
    if (!parsed) continue;
    const file = source.path;
    settings.files.push(file);
    settings.ignored.push(...parsed.notices);
    const isUser = source.isUser;
    const dialect = { claudeRoot: claudeRootOf(source) };
    const rules = (list: string[], field: string) =>
      list.map((text, index) => {
        const rule = parseRule(text, file, isUser, dialect);
        if (typeof rule === "string") throw new SettingsError(`${file}: permissions.${field}[${index}]: ${rule}`);
        return rule;
      });
    const directories = parsed.permissions.additionalDirectories.map((folder) =>
      path.resolve(dialect.claudeRoot ?? cwd, folder.replace(/^~(?=\/|$)/, env.HOME || homedir())),
    );
    (isUser ? settings.directories : settings.projectDirectories).push(...directories);
    (isUser ? settings.allow : settings.projectAllow).push(...rules(parsed.permissions.allow, "allow"));
    settings.deny.push(...rules(parsed.permissions.deny, "deny"));
    settings.ask.push(...rules(parsed.permissions.ask, "ask"));
    settings.strip.push(...(parsed.env?.strip ?? []));
    const { enabled } = parsed.sandbox ?? {};
    settings.ignored.push(...addNetworkSettings(settings.network, parsed.sandbox, file, isUser, userFile));
    // A project's file may only narrow: plan mode, which changes nothing, and wins over the user's choice.
    if (isUser || parsed.permissionMode === "plan")
      settings.permissionMode = parsed.permissionMode ?? settings.permissionMode;
    else if (parsed.permissionMode)
      settings.ignored.push(
        `${file}: permissionMode ${parsed.permissionMode} is ignored (a project's file may choose only plan; use --approve or ${userFile})`,
      );
    if (isUser) {
      settings.sandboxEnabled = enabled ?? settings.sandboxEnabled;
      settings.passthrough.push(...(parsed.env?.passthrough ?? []));
      settings.trustedFolders.push(...(parsed.trustedFolders ?? []));
      continue;
    }
    if (enabled === false)
      settings.ignored.push(
        `${file}: sandbox.enabled false is ignored (only ${userFile} or --sandbox off can turn the sandbox off)`,
      );
    if (parsed.env?.passthrough?.length)
      settings.ignored.push(`${file}: env.passthrough is ignored (only ${userFile} can pass credentials to commands)`);
    if (parsed.trustedFolders?.length)
      settings.ignored.push(`${file}: trustedFolders is ignored (only ${userFile} can trust folders)`);
  }
  return settings;
}

/** For a Claude Code file, the folder its `/path` rules start from: the one holding `.claude` (the home folder for the user's). */
function claudeRootOf(source: SettingsSource): string | undefined {
  return source.dialect === "claude" ? path.dirname(path.dirname(source.path)) : undefined;
}
