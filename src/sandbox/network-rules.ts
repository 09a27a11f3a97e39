// The network allowlist of sandboxed commands (`sandbox.network` in settings.json): which host
// and port a connection through the session's proxy (network-proxy.ts) may reach. Pure data
// and matching; the proxy resolves names and checks addresses.
//
// An entry is a domain (`registry.npmjs.org`), a wildcard for its subdomains
// (`*.githubusercontent.com`, which does not match the bare domain, as in Claude Code's
// allowedDomains), an IP address (`93.184.216.34`, `[2606:2800::1]`), each with an optional
// `:port` (without one, every port); or a loopback grant, `localhost:5432` (`127.0.0.1:5432`,
// `[::1]:5432`), which must name its port. Names are compared lower-case without a trailing dot;
// an IP address only matches an entry that is that address, and a name never matches an
// address entry (`127.1`, `0x7f000001` are names, and no list holds them).
import { isIP } from "node:net";

export interface NetworkRule {
  /** Lower-case name, `*.suffix`, or an IP address (IPv6 without brackets). */
  host: string;
  /** Absent: any port. */
  port?: number;
  kind: "name" | "wildcard" | "address" | "loopback";
  /** As written, for messages. */
  text: string;
}

/** Names and addresses that mean the machine itself: reached only through a loopback grant. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1"]);

/** Parses one entry; a string is what is wrong with it. */
export function parseNetworkRule(text: string): NetworkRule | string {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(trimmed);
  const match = bracketed ?? plain;
  if (!match) return `"${text}" is not a domain, *.domain or address with an optional :port`;
  const host = normalHost(match[1]);
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && !(port >= 1 && port <= 65535)) return `"${text}": the port must be 1 to 65535`;
  if (bracketed && isIP(host) !== 6) return `"${text}": only an IPv6 address goes in brackets`;
  const rule = { host, ...(port === undefined ? {} : { port }), text: trimmed };
  if (LOOPBACK_HOSTS.has(host)) {
    if (port === undefined) return `"${text}": a loopback grant names its port (localhost:5432)`;
    return { ...rule, host: "localhost", kind: "loopback" };
  }
  if (isIP(host)) return { ...rule, kind: "address" };
  const name = host.startsWith("*.") ? host.slice(2) : host;
  const labels = name.split(".");
  if (!labels.every((label) => /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/.test(label)))
    return `"${text}" is not a domain name (letters, digits and hyphens between dots; "*." only at the start)`;
  if (host.startsWith("*.") && labels.length < 2)
    return `"${text}": a wildcard covers the subdomains of a domain with a dot (*.example.com), not a whole top-level domain`;
  return { ...rule, kind: host.startsWith("*.") ? "wildcard" : "name" };
}

/** Lower case, no trailing dot, no IPv6 brackets or zone: the form rules and requests are compared in. */
export function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** Whether the host is one of the loopback names a grant covers. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(normalHost(host));
}

/** The rule of `rules` that covers `host:port`, if any. */
export function matchingRule(rules: NetworkRule[], host: string, port: number): NetworkRule | undefined {
  const wanted = normalHost(host);
  const isAddress = isIP(wanted) !== 0;
  return rules.find((rule) => {
    if (rule.port !== undefined && rule.port !== port) return false;
    switch (rule.kind) {
      case "loopback":
        return isLoopbackHost(wanted);
      case "address":
        return isAddress && sameAddress(rule.host, wanted);
      case "name":
        return !isAddress && wanted === rule.host;
      case "wildcard":
        return !isAddress && wanted.endsWith(rule.host.slice(1)) && wanted.length > rule.host.length - 1;
    }
    return false;
  });
}

/** Two spellings of one address (`::1` and `0:0::1`) are the same; v4 compares as written (isIP accepts only dotted quads). */
function sameAddress(a: string, b: string): boolean {
  if (isIP(a) !== isIP(b)) return false;
  if (isIP(a) === 4) return a === b;
  return expandV6(a) === expandV6(b);
}

function expandV6(address: string): string {
  const [head, tail = ""] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const h = groups(head);
  const t = groups(tail);
  const fill = address.includes("::") ? Array(8 - h.length - t.length).fill("0") : [];
  return [...h, ...fill, ...t].map((group) => group.padStart(4, "0")).join(":");
}
