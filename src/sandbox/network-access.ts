// What the settings allow sandboxed commands to reach when `sandbox.network` is a list (or "on"
// narrowed by a project's list, or by denied domains): the proxy's judge (network-proxy.ts).
import { isIP } from "node:net";
import type { Verdict } from "./network-proxy.ts";
import { isLoopbackHost, matchingRule, type NetworkRule } from "./network-rules.ts";

export interface NetworkAccess {
  /** What the user allows: every public name ("on"), or their list. */
  allowed: "on" | NetworkRule[];
  /** Lists from project files: a connection must be on each (a project narrows, never widens). */
  narrowedBy: { file: string; rules: NetworkRule[] }[];
  /** Never reached, whoever lists them (`deniedDomains`). */
  denied: NetworkRule[];
}

/** Whether the access needs the proxy (anything short of the whole network). */
export function needsProxy(access: NetworkAccess): boolean {
  return access.allowed !== "on" || access.narrowedBy.length > 0 || access.denied.length > 0;
}

/** The settings' verdict on `host:port` (before any question to the user). */
export function judgeAccess(access: NetworkAccess, host: string, port: number): Verdict {
  const where = `${host}:${port}`;
  const denied = matchingRule(access.denied, host, port);
  if (denied)
    return { allowed: false, why: `${where} is denied by sandbox deniedDomains (${denied.text})`, final: true };
  let rule: NetworkRule | undefined;
  if (access.allowed === "on") {
    if (isLoopbackHost(host))
      return {
        allowed: false,
        why: `${where} is this machine; only a grant (localhost:${port}) reaches it`,
        final: true,
      };
    if (isIP(host))
      return {
        allowed: false,
        why: `${where} is an IP address; only an entry that is that address reaches it`,
        final: true,
      };
  } else {
    rule = matchingRule(access.allowed, host, port);
    if (!rule) return { allowed: false, why: `${where} is not on the sandbox.network list` };
  }
  for (const { file, rules } of access.narrowedBy)
    if (!matchingRule(rules, host, port))
      return { allowed: false, why: `${where} is not on the sandbox.network list of ${file}` };
  const kind = rule?.kind ?? "name";
  return { allowed: true, grant: kind === "wildcard" ? "name" : kind };
}
