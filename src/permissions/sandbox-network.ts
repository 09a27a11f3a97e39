// A session's network for sandboxed commands: what the settings allow (network-settings.ts), the
// proxy that enforces it (sandbox/network-proxy.ts), started when first needed, what the user
// answered, and the record of every connection. It keeps the sandbox policy's network fields
// and the command environment's proxy variables in step (they are read at each command's start).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { judgeAccess, type NetworkAccess, needsProxy } from "../sandbox/network-access.ts";
import {
  type ConnectionRecord,
  type NetworkProxy,
  type ProxyOptions,
  startNetworkProxy,
  type Verdict,
  type Via,
} from "../sandbox/network-proxy.ts";
import { matchingRule, type NetworkRule } from "../sandbox/network-rules.ts";
import type { Origin } from "../sandbox/relay-origin.ts";
import { PROXY_PORT, type SandboxPolicy } from "../sandbox/sandbox-policy.ts";
import { type GrantsPlace, grantFor, readProjectGrants, sameRule, saveProjectGrants } from "./network-grants.ts";
import { effectiveNetwork, type NetworkSettings, trustedNetwork } from "./network-settings.ts";

/** An answer to "may this command reach host:port?" (chat only; headless, a refusal is final). */
export type NetworkAnswer = "once" | "session" | "project" | "never";

/** A connection as the session keeps it: when, and what the proxy (or web_fetch's check) decided. */
export type NetworkRecord = ConnectionRecord & { time: string };

/** Connections kept in memory for /network (the session file has them all, up to MAX_FILED). */
const MAX_KEPT = 500;
/** Refusals a command's result names at most. */
const MAX_SHOWN_REFUSALS = 5;

/** The variables that point commands at the proxy, both spellings (curl reads only the lower-case http_proxy). */
const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;
const PROXY_VARIABLES: Record<string, string> = {
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  ALL_PROXY: PROXY_URL,
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  all_proxy: PROXY_URL,
  // Node 24+ fetch and http read the proxy variables only when told to.
  NODE_USE_ENV_PROXY: "1",
};
/** Removed: every route is the proxy's anyway, and the proxy should see (and record) every attempt. */
const BYPASS_VARIABLES = ["NO_PROXY", "no_proxy"];

export class SandboxNetwork {
  /** The latest connections, oldest first (at most MAX_KEPT). */
  readonly records: NetworkRecord[] = [];
  /** Asks the user about a connection the settings refuse; absent (headless), refused. */
  ask?: (host: string, port: number, via: Via, origin: Origin) => Promise<NetworkAnswer>;
  /** Told of each record as it happens: the warning line (headless: refusals go to stderr), the session file. */
  readonly onRecord: ((record: NetworkRecord) => void)[] = [];
  private access: boolean | NetworkAccess;
  private proxy?: NetworkProxy;
  private folder?: string;
  /** The relay's token (relay-origin.ts): one per session. */
  private readonly token = randomBytes(24).toString("hex");
  /** Hosts allowed for this session (an "always" answer, /network add). */
  readonly sessionGrants: NetworkRule[] = [];
  /** Hosts allowed always for this project, saved (network-grants.ts). */
  projectGrants: NetworkRule[] = [];
  /** host:port refused by an answer, for the rest of the session. */
  readonly refused = new Set<string>();
  /** Questions being asked: parallel connections to one host (npm) ask once. */
  private readonly asking = new Map<string, Promise<NetworkAnswer>>();

  constructor(
    private readonly settings: NetworkSettings,
    private readonly allowNetwork: boolean | undefined,
    private readonly policy: SandboxPolicy,
    private readonly env: Record<string, string>,
    /** For tests only (ProxyOptions.resolve, fakeInternet). */
    private readonly testing: Pick<ProxyOptions, "resolve" | "fakeInternet"> = {},
    /** Where this project's saved grants are; absent, none are read or saved. */
    readonly grantsPlace?: GrantsPlace,
    warn: (message: string) => void = () => {},
  ) {
    this.access = effectiveNetwork(settings, allowNetwork);
    if (grantsPlace) this.projectGrants = readProjectGrants(grantsPlace, warn);
  }

  /** Whether commands reach the whole network, nothing, or the list (for /network and the docs). */
  get mode(): "on" | "off" | "list" {
    return this.access === true ? "on" : this.access === false ? "off" : "list";
  }

  /** What the settings allow now (for /network): the list, the project lists narrowing it, the denied entries. */
  get settingsAccess(): boolean | NetworkAccess {
    return this.access;
  }

  /** The folder is trusted: a project's list widens as well as narrows. */
  trust(): void {
    this.access = trustedNetwork(this.settings, this.allowNetwork);
  }

  /** Sets the policy's network fields and the proxy variables; starts the proxy the first time one is needed. */
  apply(): void {
    const access = this.access;
    this.policy.network = access === true;
    if (typeof access === "boolean" || !needsProxy(access)) {
      this.policy.networkProxy = undefined;
      for (const name of Object.keys(PROXY_VARIABLES)) delete this.env[name];
      return;
    }
    this.proxy ??= this.startProxy();
    const loopbackPorts = access.allowed === "on" ? [] : access.allowed.filter((rule) => rule.kind === "loopback");
    this.policy.networkProxy = {
      socket: this.proxy.socketPath,
      loopbackPorts: loopbackPorts.map((rule) => rule.port as number).sort((a, b) => a - b),
      token: this.token,
    };
    for (const name of BYPASS_VARIABLES) delete this.env[name];
    Object.assign(this.env, PROXY_VARIABLES);
  }

  /** web_fetch's check (core/tool.ts NetworkJudge): decided as a command's connection, and recorded. */
  async judge(host: string, port: number, via: Via, origin: Origin = {}): Promise<Verdict> {
    const verdict = await this.decide(host, port, via, origin);
    if (this.mode === "list")
      this.keep({
        host,
        port,
        via,
        allowed: verdict.allowed,
        ...(verdict.allowed ? {} : { why: verdict.why }),
        ...origin,
      });
    return verdict;
  }

  /** The settings' verdict, then the person's grants and answers, then the person (when someone can be asked). */
  private async decide(host: string, port: number, via: Via, origin: Origin): Promise<Verdict> {
    if (typeof this.access === "boolean")
      return this.access ? { allowed: true, grant: "name" } : { allowed: false, why: "the network is off" };
    const verdict = judgeAccess(this.access, host, port);
    if (verdict.allowed || verdict.final) return verdict;
    // A grant opens a host as a listed name would be: public addresses only, checked after resolution.
    if (matchingRule([...this.sessionGrants, ...this.projectGrants], host, port))
      return { allowed: true, grant: "name" };
    const key = `${host}:${port}`;
    if (this.refused.has(key)) return { allowed: false, why: `${key}: refused by your answer this session` };
    if (!this.ask) return verdict;
    const question = this.asking.get(key) ?? this.ask(host, port, via, origin);
    this.asking.set(key, question);
    const answer = await question.finally(() => this.asking.delete(key));
    switch (answer) {
      case "never":
        this.refused.add(key);
        return { allowed: false, why: `${key}: you refused it` };
      case "project":
        this.grant(grantFor(host, port), "project");
        break;
      case "session":
        this.grant(grantFor(host, port), "session");
        break;
      case "once":
        break;
    }
    return { allowed: true, grant: "name" };
  }

  /** Adds a grant (an answer, or /network add); "project" saves it. Throws when the file cannot be written. */
  grant(rule: NetworkRule, scope: "session" | "project"): void {
    const list = scope === "session" ? this.sessionGrants : this.projectGrants;
    if (!list.some((old) => sameRule(old, rule))) list.push(rule);
    for (const key of [...this.refused]) if (matchingRule([rule], ...splitKey(key))) this.refused.delete(key);
    if (scope === "project" && this.grantsPlace) saveProjectGrants(this.grantsPlace, this.projectGrants);
  }

  /** Removes a grant from the session's and the project's (saved); whether there was one. */
  revoke(rule: NetworkRule): boolean {
    const before = this.sessionGrants.length + this.projectGrants.length;
    this.sessionGrants.splice(
      0,
      this.sessionGrants.length,
      ...this.sessionGrants.filter((old) => !sameRule(old, rule)),
    );
    const kept = this.projectGrants.filter((old) => !sameRule(old, rule));
    if (kept.length !== this.projectGrants.length && this.grantsPlace) saveProjectGrants(this.grantsPlace, kept);
    this.projectGrants = kept;
    return this.sessionGrants.length + this.projectGrants.length < before;
  }

  /** The connections `command` was refused since `since` (the bash tool's result shows them), at most MAX_SHOWN_REFUSALS. */
  refusalsOf(command: string, since: string): string[] {
    const same = (named: string | undefined) =>
      named === command || (named?.endsWith("…") === true && command.startsWith(named.slice(0, -1)));
    const refused = this.records.filter((record) => !record.allowed && record.time >= since && same(record.command));
    const lines = refused
      .slice(0, MAX_SHOWN_REFUSALS)
      .map((record) => `network: refused ${record.host}:${record.port} (${record.why})`);
    if (refused.length > MAX_SHOWN_REFUSALS)
      lines.push(`network: ${refused.length - MAX_SHOWN_REFUSALS} more refused (/network lists them)`);
    return lines;
  }

  /** Ends the proxy and removes its socket. */
  close(): void {
    this.proxy?.close();
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
    this.proxy = undefined;
  }

  private keep(entry: ConnectionRecord): void {
    const record = { ...entry, time: new Date().toISOString() };
    this.records.push(record);
    if (this.records.length > MAX_KEPT) this.records.shift();
    for (const listener of this.onRecord) listener(record);
  }

  private startProxy(): NetworkProxy {
    // A folder only this user may enter: the socket is the way out, and no one else's to use.
    this.folder = mkdtempSync(path.join(tmpdir(), "harness-net-"));
    const folder = this.folder;
    process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
    return startNetworkProxy({
      socketPath: path.join(folder, "proxy.sock"),
      judge: (host, port, via, origin) => this.decide(host, port, via, origin),
      record: (entry) => this.keep(entry),
      relayToken: this.token,
      ...this.testing,
    });
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf(":");
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
