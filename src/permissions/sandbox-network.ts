// A session's network for sandboxed commands: what the settings allow (network-settings.ts), the
// proxy that enforces it (sandbox/network-proxy.ts), started when first needed, what the user
// answered, and the record of every connection. It keeps the sandbox policy's network fields
// and the command environment's proxy variables in step (they are read at each command's start).
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
import { PROXY_PORT, type SandboxPolicy } from "../sandbox/sandbox-policy.ts";
import type { AskApprovalFn } from "./approver.ts";
import { effectiveNetwork, type NetworkSettings, trustedNetwork } from "./network-settings.ts";

/** An answer to "may this command reach host:port?" (chat only; headless, a refusal is final). */
type NetworkAnswer = "once" | "always" | "never";

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
  readonly records: (ConnectionRecord & { time: string })[] = [];
  /** Asks the user about a connection the settings refuse; absent (headless), refused. */
  ask?: (host: string, port: number, via: Via) => Promise<NetworkAnswer>;
  /** Told of each record as it happens (headless: refusals go to stderr). */
  onRecord?: (record: ConnectionRecord) => void;
  private access: boolean | NetworkAccess;
  private proxy?: NetworkProxy;
  private folder?: string;
  /** Answers for this session: host:port -> allowed or not. */
  private readonly answers = new Map<string, boolean>();
  /** Questions being asked: parallel connections to one host (npm) ask once. */
  private readonly asking = new Map<string, Promise<NetworkAnswer>>();

  constructor(
    private readonly settings: NetworkSettings,
    private readonly allowNetwork: boolean | undefined,
    private readonly policy: SandboxPolicy,
    private readonly env: Record<string, string>,
    /** For tests only (ProxyOptions.resolve, fakeInternet). */
    private readonly testing: Pick<ProxyOptions, "resolve" | "fakeInternet"> = {},
  ) {
    this.access = effectiveNetwork(settings, allowNetwork);
  }

  /** Whether commands reach the whole network, nothing, or the list (for /network and the docs). */
  get mode(): "on" | "off" | "list" {
    return this.access === true ? "on" : this.access === false ? "off" : "list";
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
    };
    for (const name of BYPASS_VARIABLES) delete this.env[name];
    Object.assign(this.env, PROXY_VARIABLES);
  }

  /** The settings' verdict, then this session's answers, then the user's (when someone can be asked). */
  async judge(host: string, port: number, via: Via): Promise<Verdict> {
    if (typeof this.access === "boolean")
      return this.access ? { allowed: true, grant: "name" } : { allowed: false, why: "the network is off" };
    const verdict = judgeAccess(this.access, host, port);
    if (verdict.allowed || verdict.final) return verdict;
    const key = `${host}:${port}`;
    const answered = this.answers.get(key);
    if (answered === undefined && this.ask) {
      const question = this.asking.get(key) ?? this.ask(host, port, via);
      this.asking.set(key, question);
      const answer = await question.finally(() => this.asking.delete(key));
      if (answer !== "once") this.answers.set(key, answer === "always");
      // An answer opens a host as a listed name would be: public addresses only, checked after resolution.
      if (answer !== "never") return { allowed: true, grant: "name" };
      return { allowed: false, why: `${key}: you refused it` };
    }
    if (answered) return { allowed: true, grant: "name" };
    return answered === false ? { allowed: false, why: `${key}: refused by your answer this session` } : verdict;
  }

  /** Ends the proxy and removes its socket. */
  close(): void {
    this.proxy?.close();
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
    this.proxy = undefined;
  }

  private startProxy(): NetworkProxy {
    // A folder only this user may enter: the socket is the way out, and no one else's to use.
    this.folder = mkdtempSync(path.join(tmpdir(), "harness-net-"));
    const folder = this.folder;
    process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
    return startNetworkProxy({
      socketPath: path.join(folder, "proxy.sock"),
      judge: (host, port, via) => this.judge(host, port, via),
      record: (entry) => {
        this.records.push({ ...entry, time: new Date().toISOString() });
        this.onRecord?.(entry);
      },
      ...this.testing,
    });
  }
}

/**
 * The question for a connection the list does not name, put as an approval: yes allows it once,
 * always for the rest of the session, no refuses it for the rest of the session (a retrying
 * client would otherwise ask again and again).
 */
export function networkQuestion(ask: AskApprovalFn): (host: string, port: number, via: Via) => Promise<NetworkAnswer> {
  return async (host, port, via) => {
    const answer = await ask(
      {
        summary: `network> ${host}:${port}`,
        why: `a sandboxed command ${via === "connect" ? "opens a tunnel" : "sends an HTTP request"} to ${host}:${port}, which sandbox.network does not list; no refuses it for this session`,
        remember: [`${host}:${port} for this session`],
      },
      new AbortController().signal,
    );
    return answer?.type === "yes" ? "once" : answer?.type === "always" ? "always" : "never";
  };
}
