// What the person allowed beyond sandbox.network, by answer or by /network: for this session
// (kept here), and "always for this project", saved in $HARNESS_HOME/network-grants.json under the
// project's real path. That file is the user's own, like trusted-folders.json: sandboxed commands
// cannot reach $HARNESS_HOME (a secret path), and a project's files are never written, so a
// project's settings still only narrow, and widen only when trusted (network-settings.ts).
//
// A grant opens a host as a listed name does: public addresses only, checked after resolution.
// A loopback grant (localhost:5432) is not taken here: it needs a listener inside the sandbox,
// set when the sandbox starts, so it belongs in sandbox.network.
import { readFileSync } from "node:fs";
import path from "node:path";
import { type NetworkRule, parseNetworkRule } from "../sandbox/network-rules.ts";
import { makePrivateFolder } from "../shared/private-files.ts";
import { writeWhole } from "../shared/write-whole.ts";

const GRANTS_FILE = "network-grants.json";

/** Where a project's saved grants live. */
export interface GrantsPlace {
  harnessHome: string;
  /** The project's real path (the workspace). */
  folder: string;
}

/** Parses what a person typed or a file holds as a grant; a string is what is wrong. */
export function parseGrant(text: string): NetworkRule | string {
  const rule = parseNetworkRule(text);
  if (typeof rule === "string") return rule;
  if (rule.kind === "loopback")
    return `"${text}" is this machine: a loopback grant goes in sandbox.network in settings.json (docs/network.md)`;
  return rule;
}

export function grantsFile(harnessHome: string): string {
  return path.join(harnessHome, GRANTS_FILE);
}

function readAll(harnessHome: string): Record<string, { entries: string[] }> {
  let text: string;
  try {
    text = readFileSync(grantsFile(harnessHome), "utf8");
  } catch {
    return {}; // none saved yet
  }
  const json = JSON.parse(text);
  if (typeof json?.folders !== "object" || json.folders === null) throw new Error('it has no "folders" object');
  return json.folders;
}

/** The project's saved grants; `warn` names the file and each entry not taken (a broken file is said, never used). */
export function readProjectGrants(place: GrantsPlace, warn: (message: string) => void): NetworkRule[] {
  let folders: Record<string, { entries: string[] }>;
  try {
    folders = readAll(place.harnessHome);
  } catch (error) {
    warn(`${grantsFile(place.harnessHome)} is not taken: ${(error as Error).message}`);
    return [];
  }
  const entries = folders[place.folder]?.entries;
  if (!Array.isArray(entries)) return [];
  const rules: NetworkRule[] = [];
  for (const entry of entries) {
    const rule = typeof entry === "string" ? parseGrant(entry) : `${JSON.stringify(entry)} is not a string`;
    if (typeof rule === "string") warn(`${grantsFile(place.harnessHome)}: ${place.folder}: not taken: ${rule}`);
    else rules.push(rule);
  }
  return rules;
}

/** Saves the project's grants (the whole list), whole or not at all; throws when the file cannot be read or written. */
export function saveProjectGrants(place: GrantsPlace, rules: NetworkRule[]): void {
  const folders = readAll(place.harnessHome);
  if (rules.length === 0) delete folders[place.folder];
  else folders[place.folder] = { entries: rules.map((rule) => rule.text) };
  makePrivateFolder(place.harnessHome);
  writeWhole(grantsFile(place.harnessHome), `${JSON.stringify({ version: 1, folders }, null, 2)}\n`);
}

/** The grant an answer about `host:port` adds: that host on that port. */
export function grantFor(host: string, port: number): NetworkRule {
  const text = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const rule = parseNetworkRule(text);
  // A host the proxy was asked about always parses (normalHost'd by the proxy); if not, a name rule that matches only it.
  return typeof rule === "string" ? { host, port, kind: "name", text } : rule;
}

/** Whether two rules say the same (as compared for /network remove). */
export function sameRule(a: NetworkRule, b: NetworkRule): boolean {
  return a.host === b.host && a.port === b.port && a.kind === b.kind;
}
