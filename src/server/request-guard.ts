// Who may talk to `harness serve`: a request must name the server by a host it listens as (a page
// on evil.example whose name was rebound to 127.0.0.1 sends `Host: evil.example`: refused), come
// from no web page but the server's own (`Origin`, and the browser's `Sec-Fetch-Site`), and carry
// the token made at start (compared in constant time). A client that keeps guessing is refused
// for a while, right token or not, so guessing is as slow as the limit.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { hostname, networkInterfaces } from "node:os";

/** 32 random bytes, as base64url: what a client must show. */
export function makeToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Whether `given` is the token, in time that does not depend on where they differ. */
export function isToken(given: string, token: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The token a request carries: `Authorization: Bearer <token>`. */
export function tokenOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header) : null;
  return match?.[1];
}

/** The `host:port` names a request may use for this server (loopback names, or the bound address). */
export function hostNamesFor(host: string, port: number): Set<string> {
  const names = new Set<string>();
  const add = (name: string) => {
    names.add(`${name}:${port}`);
    if (port === 80 || port === 443) names.add(name);
  };
  if (host === "127.0.0.1" || host === "::1" || host === "localhost") {
    add("127.0.0.1");
    add("localhost");
    add("[::1]");
  } else if (host === "0.0.0.0" || host === "::") {
    // Every address: reached by any of this machine's names (a rebinding page's name is none of them).
    for (const name of [...machineNames(), "127.0.0.1", "::1"]) add(name.includes(":") ? `[${name}]` : name);
  } else add(host.includes(":") ? `[${host}]` : host);
  return names;
}

/** This machine's names: its interfaces' addresses (no zone ids), its host name, localhost. */
export function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
  return [...new Set([...addresses.map((address) => address.replace(/%.*$/, "")), hostname(), "localhost"])];
}

/**
 * Why a request is refused before its token is looked at: a Host that is not this server's
 * (DNS rebinding), an Origin that is not this server's own page, or a browser saying the request
 * comes from another site. Undefined: it may go on.
 */
export function foreignRequest(
  request: IncomingMessage,
  hosts: Set<string>,
  scheme: "http" | "https",
): string | undefined {
  const host = request.headers.host?.toLowerCase();
  if (!host || !hosts.has(host)) return "this server is not reached by that host name";
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `${scheme}://${host}`) return "requests from other web pages are refused";
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return "requests from other web pages are refused";
  return undefined;
}

/** Failed tokens per client address: past `maxFailures` in `windowMs`, refused until the window ends. */
export class FailureLimit {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly maxFailures = 20,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds `address` must still wait; 0: it may try. */
  waitFor(address: string): number {
    const record = this.failures.get(address);
    if (!record) return 0;
    const left = record.since + this.windowMs - this.now();
    if (left <= 0) {
      this.failures.delete(address);
      return 0;
    }
    return record.count >= this.maxFailures ? left : 0;
  }

  fail(address: string): void {
    const record = this.failures.get(address);
    if (!record || record.since + this.windowMs <= this.now())
      this.failures.set(address, { count: 1, since: this.now() });
    else record.count++;
    // Bounded: a flood of addresses (IPv6) forgets the oldest.
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value as string);
  }
}
