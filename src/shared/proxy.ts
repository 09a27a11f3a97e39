// HTTP proxies as users set them: HTTPS_PROXY for https URLs, HTTP_PROXY for http ones (lower case
// first, as curl reads them), NO_PROXY for hosts to reach directly. Model calls, `harness models`,
// MCP over HTTP, the local model's download and web_fetch all go through here. In core because
// providers, tools and mcp each need it and may import only core; it uses `node:` modules alone.
//
// *Decision*: our own CONNECT client (about 100 lines) rather than a library. The well-kept ones
// (https-proxy-agent with agent-base, proxy-from-env; undici's EnvHttpProxyAgent) cover only one
// of our two clients each: `http.request` wants an Agent, `fetch` a dispatcher, and undici's
// package is a second copy of what Node already carries (~1 MB). Node 24's NODE_USE_ENV_PROXY is
// read at start-up only and is missing on Node 20. A tunnel is one request and one reply line.
import type { ClientRequestArgs, Agent as HttpAgent } from "node:http";
import { BlockList, isIP, type Socket } from "node:net";
import type { Duplex } from "node:stream";

/** A proxy variable is set to something we cannot use: said, never silently ignored. */
export class ProxySettingError extends Error {
  override name = "ProxySettingError";
}

/**
 * The proxy to reach `target` through, or undefined for a direct connection: no variable for its
 * scheme, or NO_PROXY names its host. Throws ProxySettingError for a value that is no http(s) URL.
 */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const names = target.protocol === "https:" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy", "HTTP_PROXY"];
  const name = names.find((candidate) => env[candidate]?.trim());
  if (name === undefined) return undefined;
  if (bypasses(env.no_proxy?.trim() || env.NO_PROXY || "", target)) return undefined;
  const raw = (env[name] as string).trim();
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new ProxySettingError(`${name} is not a URL: ${raw}`);
  }
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:")
    throw new ProxySettingError(`${name}: only http:// and https:// proxies are supported, not ${proxy.protocol}//`);
  return proxy;
}

/**
 * NO_PROXY as curl reads it: entries split by commas or spaces; `*` is every host; an entry
 * matches its host and every subdomain (`example.com`, `.example.com` and `*.example.com` alike);
 * an IP address matches itself (IPv6 bare `::1` or bracketed `[::1]`, in any spelling), a range
 * `a.b.c.d/n` or `fd00::/8` its addresses; `host:port` and `[v6]:port` only that port. A bare
 * IPv6 entry has no port: `::1` is the address, not host `:` port 1 (which it was read as before).
 */
export function bypasses(noProxy: string, target: URL): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === "*") return true;
      const { name, entryPort } = splitEntry(entry.toLowerCase());
      if (entryPort !== undefined && entryPort !== port) return false;
      if (name.includes("/")) return inRange(host, name);
      if (isIP(name) !== 0) return isIP(host) === isIP(name) && inRange(host, `${name}/${isIP(name) === 4 ? 32 : 128}`);
      const bare = name.replace(/^\*?\./, "");
      return bare !== "" && (host === bare || (isIP(host) === 0 && host.endsWith(`.${bare}`)));
    });
}

/** A NO_PROXY entry's host (or range) and port: `[v6]:port`, a bare IPv6 (two colons or more: no port), `host:port`. */
function splitEntry(entry: string): { name: string; entryPort?: string } {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1], entryPort: bracketed[2] };
  if ((entry.match(/:/g) ?? []).length >= 2) return { name: entry };
  const [, name = "", entryPort] = /^([^:]*)(?::(\d+))?$/.exec(entry) ?? [];
  return { name, entryPort };
}

/** Whether `host` is an address inside `range` (`a.b.c.d/n` or `v6::/n`); a malformed range matches nothing. */
function inRange(host: string, range: string): boolean {
  const [base, bits] = range.split("/");
  const family = isIP(base);
  const width = Number(bits);
  if (
    family === 0 ||
    isIP(host) !== family ||
    !Number.isInteger(width) ||
    width < 0 ||
    width > (family === 4 ? 32 : 128)
  )
    return false;
  const list = new BlockList();
  const type = family === 4 ? "ipv4" : "ipv6";
  list.addSubnet(base, width, type);
  return list.check(host, type);
}

/**
 * How to send a request for `target` through `proxy`: with which of Node's clients and which
 * options over the target's own (`request(target, options)`). An https target gets an Agent that
 * opens a CONNECT tunnel, then TLS to the target inside it (certificates checked as usual,
 * NODE_EXTRA_CA_CERTS included); an http target is asked of the proxy in absolute form
 * (`GET http://host/path`), as proxies expect. `connectTo` replaces the host the tunnel or
 * request names (web_fetch passes the address it checked, so the proxy cannot resolve the name to
 * another); the Host header and TLS name stay the target's.
 */
export async function requestViaProxy(
  target: URL,
  proxy: URL,
  connectTo = target.hostname.replace(/^\[|\]$/g, ""),
): Promise<{ client: "http" | "https"; options: ClientRequestArgs }> {
  const port = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  const authorization = proxyAuthorization(proxy);
  if (target.protocol === "https:")
    return { client: "https", options: { agent: await tunnelAgent(proxy, connectTo, port, authorization) } };
  const asked = new URL(target.href);
  asked.hostname = isIP(connectTo) === 6 ? `[${connectTo}]` : connectTo;
  const proxyHost = proxy.hostname.replace(/^\[|\]$/g, "");
  return {
    client: proxy.protocol === "https:" ? "https" : "http",
    options: {
      protocol: proxy.protocol,
      hostname: proxyHost,
      port: Number(proxy.port || (proxy.protocol === "https:" ? 443 : 80)),
      path: asked.href,
      headers: { host: target.host, ...(authorization ? { "proxy-authorization": authorization } : {}) },
      ...(proxy.protocol === "https:" && !isIP(proxyHost) ? { servername: proxyHost } : {}),
    },
  };
}

/** `Basic` credentials from the proxy URL's user part (`http://user:pass@proxy:3128`), if any. */
function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/**
 * How long a kept-alive connection (or tunnel) may sit idle for the next request. The official
 * SDKs keep theirs five minutes (openai-node and anthropic-sdk-typescript's agentkeepalive
 * `timeout`); a server's own shorter `Keep-Alive: timeout=` wins.
 */
export const KEEP_ALIVE_IDLE_MS = 5 * 60_000;

/** Longest a proxy may take to answer CONNECT. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Most bytes of a proxy's answer to CONNECT (its status line and headers). */
const CONNECT_REPLY_BYTES = 16 * 1024;

/**
 * The tunnel agents made so far, one per proxy and target: a kept-alive tunnel serves every later
 * request to the same target (a session's model calls), as Claude Code keeps one, instead of a
 * CONNECT and a TLS handshake per call.
 */
const tunnelAgents = new Map<string, Promise<HttpAgent>>();

/** An https Agent whose connections are tunnels through `proxy` to `host:port`, kept alive and reused. */
function tunnelAgent(proxy: URL, host: string, port: number, authorization?: string): Promise<HttpAgent> {
  const key = `${proxy.href} ${host} ${port}`;
  let agent = tunnelAgents.get(key);
  if (!agent) {
    agent = newTunnelAgent(proxy, host, port, authorization);
    tunnelAgents.set(key, agent);
  }
  return agent;
}

async function newTunnelAgent(proxy: URL, host: string, port: number, authorization?: string): Promise<HttpAgent> {
  const [https, tls, net] = await Promise.all([import("node:https"), import("node:tls"), import("node:net")]);
  /** The proxy connection under each tunnel's TLS socket: idle in the pool, it must not hold the process open either. */
  const underneath = new WeakMap<Duplex, Socket>();
  class TunnelAgent extends https.Agent {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (error: Error | null, stream: Duplex) => void,
    ): undefined {
      const proxyPort = Number(proxy.port || (proxy.protocol === "https:" ? 443 : 80));
      const proxyHost = proxy.hostname.replace(/^\[|\]$/g, "");
      const toProxy =
        proxy.protocol === "https:"
          ? tls.connect({ host: proxyHost, port: proxyPort, servername: isIP(proxyHost) ? undefined : proxyHost })
          : net.connect({ host: proxyHost, port: proxyPort });
      openTunnel(toProxy, `${isIP(host) === 6 ? `[${host}]` : host}:${port}`, authorization).then(
        (socket) => {
          // https.Agent has put the target's name (and any `ca`, `rejectUnauthorized`) in `options`.
          const tlsOptions = options as import("node:tls").ConnectionOptions;
          const servername = tlsOptions.servername || (options.host ?? undefined);
          const secure = tls.connect({
            ...tlsOptions,
            socket,
            servername: servername && !isIP(servername) ? servername : undefined,
          });
          underneath.set(secure, socket);
          callback?.(null, secure);
        },
        (error: Error) => callback?.(error, undefined as unknown as Duplex),
      );
      return undefined;
    }

    // Node's own returns whether the socket may stay (its @types say void): passed on as it is.
    override keepSocketAlive(socket: Duplex): void {
      underneath.get(socket)?.unref();
      return super.keepSocketAlive(socket);
    }

    override reuseSocket(socket: Duplex, request: import("node:http").ClientRequest): void {
      underneath.get(socket)?.ref();
      super.reuseSocket(socket, request);
    }
  }
  return new TunnelAgent({ keepAlive: true, scheduling: "lifo", timeout: KEEP_ALIVE_IDLE_MS });
}

/** Sends CONNECT on `socket` and resolves with it once the proxy answered 2xx. */
function openTunnel(socket: Socket, authority: string, authorization?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    let reply = Buffer.alloc(0);
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      const end = reply.indexOf("\r\n\r\n");
      if (end < 0) {
        if (reply.length > CONNECT_REPLY_BYTES)
          fail(new Error(`the proxy's answer to CONNECT ${authority} is too long`));
        return;
      }
      socket.off("data", onData);
      socket.off("error", fail);
      socket.setTimeout(0);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(reply.toString("latin1"))?.[1];
      if (!status?.startsWith("2")) {
        const line = reply.toString("latin1").split("\r\n")[0];
        return fail(Object.assign(new Error(`the proxy refused CONNECT ${authority}: ${line}`), { code: "EPROXY" }));
      }
      // Bytes past the proxy's answer already belong to the tunnel.
      if (reply.length > end + 4) socket.unshift(reply.subarray(end + 4));
      resolve(socket);
    };
    socket.on("data", onData);
    socket.on("error", fail);
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => fail(new Error(`the proxy did not answer CONNECT ${authority}`)));
    const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
    if (authorization) lines.push(`Proxy-Authorization: ${authorization}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  });
}
