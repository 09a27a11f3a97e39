// `sandbox.network` and `sandbox.deniedDomains` from every settings file, merged (docs/network.md):
// - the user's files set what is allowed: "off" (the default), "on" (true), or a list; lists in
//   both user files add up, and a later "on"/"off" replaces what came before;
// - a project's file can only narrow at once: false/"off" turns the network off, a list becomes
//   a filter every connection must also pass; its true/"on" is ignored with a notice. In a
//   trusted folder its list also joins the user's (withProjectNetwork), so there the project's
//   list is what holds;
// - denied domains apply from every file.
import type { NetworkAccess } from "../sandbox/network-access.ts";
import { type NetworkRule, parseNetworkRule } from "../sandbox/network-rules.ts";
import { SettingsError } from "../settings/settings-file.ts";

/** The merged network settings, before flags and trust. */
export interface NetworkSettings {
  /** The user's choice; absent: off. */
  user?: "off" | "on" | NetworkRule[];
  /** Each project file's list, in the order read. */
  project: { file: string; rules: NetworkRule[] }[];
  /** A project file turned the network off. */
  projectOff: boolean;
  denied: NetworkRule[];
}

export function emptyNetworkSettings(): NetworkSettings {
  return { project: [], projectOff: false, denied: [] };
}

/** Adds one file's `sandbox` section; returns notices for what was ignored. Throws SettingsError on a bad entry. */
export function addNetworkSettings(
  merged: NetworkSettings,
  section: { network?: boolean | "off" | "on" | string[]; deniedDomains?: string[] } | undefined,
  file: string,
  isUser: boolean,
  userFile: string,
): string[] {
  const { network, deniedDomains } = section ?? {};
  merged.denied.push(...rulesOf(deniedDomains ?? [], file, "sandbox.deniedDomains"));
  if (network === undefined) return [];
  const value = network === true ? "on" : network === false ? "off" : network;
  if (isUser) {
    if (typeof value === "string") merged.user = value;
    else {
      const rules = rulesOf(value, file, "sandbox.network");
      merged.user = Array.isArray(merged.user) ? [...merged.user, ...rules] : rules;
    }
    return [];
  }
  if (value === "off") merged.projectOff = true;
  else if (value === "on")
    return [
      `${file}: sandbox.network ${JSON.stringify(network)} is ignored (only ${userFile} or --allow-network can allow the whole network)`,
    ];
  else merged.project.push({ file, rules: rulesOf(value, file, "sandbox.network") });
  return [];
}

function rulesOf(entries: string[], file: string, field: string): NetworkRule[] {
  return entries.map((entry, index) => {
    const rule = parseNetworkRule(entry);
    if (typeof rule === "string") throw new SettingsError(`${file}: ${field}[${index}]: ${rule}`);
    return rule;
  });
}

/**
 * What commands may reach: `false` (the network namespace cut, today's default), `true` (the
 * whole network, no proxy), or the access the proxy enforces. `--allow-network` is the user's "on".
 */
export function effectiveNetwork(
  settings: NetworkSettings,
  allowNetwork: boolean | undefined,
): boolean | NetworkAccess {
  if (settings.projectOff) return false;
  const user = allowNetwork ? "on" : (settings.user ?? "off");
  if (user === "off") return false;
  const access: NetworkAccess = { allowed: user, narrowedBy: settings.project, denied: settings.denied };
  if (user === "on" && settings.project.length === 0 && settings.denied.length === 0) return true;
  return access;
}

/**
 * In a trusted folder a project's lists widen too: their entries join what the user allows, so
 * with the user's network off, the project's list is what holds. The user's "on" stays "on",
 * narrowed by them.
 */
export function trustedNetwork(settings: NetworkSettings, allowNetwork: boolean | undefined): boolean | NetworkAccess {
  if (settings.project.length === 0 || settings.projectOff) return effectiveNetwork(settings, allowNetwork);
  const user = allowNetwork ? "on" : (settings.user ?? "off");
  const projectRules = settings.project.flatMap((list) => list.rules);
  const allowed = user === "on" ? "on" : [...(user === "off" ? [] : user), ...projectRules];
  return { allowed, narrowedBy: settings.project, denied: settings.denied };
}
