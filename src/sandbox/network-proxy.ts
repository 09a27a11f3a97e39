// The one way out of a sandbox whose network is an allowlist: an HTTP proxy that the harness
// process runs for the session on a unix socket, which bwrap.ts mounts into the sandbox's own
// network namespace (where the command helper relays 127.0.0.1:3128 to it). Nothing else in that
// namespace reaches anywhere, so no variable (NO_PROXY, an unset HTTPS_PROXY) routes around it.
//
// - Plain HTTP (an absolute `http://` request line): the request line's host and the Host header
//   must agree, and that host must be allowed; each request on a kept-alive connection is judged.
// - CONNECT host:port: the host must be allowed; for a name, the tunnel must then start with a TLS
//   ClientHello whose SNI is that same name (client-hello.ts), checked before any connection is
//   made. Loopback and address grants carry any bytes (postgres, ssh).
// - Names are resolved here, and only allowed ones; every address they resolve to must be public
//   (shared/public-address.ts), and the connection goes to the address checked, so no second
//   resolution can rebind it. An IP address is reached only through an entry that is that address.
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import net from "node:net";
import { whyNotPublic } from "../shared/public-address.ts";
import { MAX_HELLO_BYTES, readClientHello } from "./client-hello.ts";
import { isLoopbackHost, normalHost } from "./network-rules.ts";
import { type Origin, readRelayLine } from "./relay-origin.ts";

/** How a connection was asked for. */
export type Via = "http" | "connect";

/** What the session's rules say of a host and port (network-access.ts). */
export type Verdict =
  | { allowed: true; grant: "name" | "address" | "loopback" }
  /** `final`: no answer of the user's changes it (a denied domain, an IP address, this machine). */
  | { allowed: false; why: string; final?: boolean };

/** One connection, allowed or refused, for the session's record and the user; with the command that opened it. */
export interface ConnectionRecord extends Origin {
  host: string;
  port: number;
  via: Via;
  allowed: boolean;
  /** Why it was refused. */
  why?: string;
}

export interface ProxyOptions {
  socketPath: string;
  judge(host: string, port: number, via: Via, origin: Origin): Promise<Verdict> | Verdict;
  record(entry: ConnectionRecord): void;
  /**
   * Set (as the session does): every connection must start with the command helper's line
   * carrying this token and naming the command (relay-origin.ts); others are refused. Unset
   * (the proxy's own tests), connections are HTTP from their first byte and name no command.
   */
  relayToken?: string;
  /**
   * For tests only (test/attacks/network-*.test.ts), never set by the CLI: how names resolve, and
   * which non-public addresses stand for the internet (the test's fake hosts on 127.0.0.x).
   */
  resolve?: (host: string) => Promise<string[]>;
  fakeInternet?: string[];
}

export interface NetworkProxy {
  socketPath: string;
  close(): void;
}

/** How long a tunnel may take to send its ClientHello. */
const HELLO_TIMEOUT_MS = 15_000;

/** Starts the proxy; the socket exists when this returns (a unix socket binds at once). */
export function startNetworkProxy(options: ProxyOptions): NetworkProxy {
  const server = http.createServer({ headersTimeout: 30_000, requestTimeout: 0 });
  const origins = new WeakMap<net.Socket, Origin>();
  const originOf = (socket: net.Socket) => origins.get(socket) ?? {};
  server.on("request", (request, response) => {
    request.on("error", () => response.destroy());
    forwardHttp(request, response, options, originOf(request.socket)).catch((error) =>
      refuseHttp(response, `proxy error: ${error.message}`),
    );
  });
  server.on("connect", (request, client: net.Socket, head: Buffer) => {
    client.on("error", () => {});
    openTunnel(request, client, head, options, originOf(client)).catch((error) => {
      if (!client.destroyed) client.end(refusalText(502, `proxy error: ${error.message}`));
    });
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  const { relayToken } = options;
  const listener = relayToken
    ? net.createServer((socket) => {
        socket.on("error", () => {});
        readRelayLine(
          socket,
          relayToken,
          (origin) => {
            origins.set(socket, origin);
            server.emit("connection", socket);
            socket.write("OK\n");
          },
          (why) => socket.end(refusalText(403, why)),
        );
      })
    : server;
  listener.listen(options.socketPath);
  listener.unref();
  return { socketPath: options.socketPath, close: () => listener.close() };
}

async function forwardHttp(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: ProxyOptions,
  origin: Origin,
) {
  const url = URL.canParse(request.url ?? "") ? new URL(request.url as string) : undefined;
  if (url?.protocol !== "http:")
    return refuseHttp(response, "the proxy takes http:// URLs in absolute form; HTTPS goes through CONNECT", 400);
  const host = normalHost(url.hostname);
  const port = Number(url.port || 80);
  const claimed = request.headers.host;
  if (claimed !== undefined && !sameAuthority(claimed, host, port)) {
    const why = `the Host header (${claimed}) disagrees with the request's host (${host}:${port})`;
    options.record({ host, port, via: "http", allowed: false, why, ...origin });
    return refuseHttp(response, why);
  }
  const target = await admit(host, port, "http", options, origin);
  if ("why" in target) return refuseHttp(response, target.why);
  const headers = { ...request.headers };
  for (const name of ["proxy-authorization", "proxy-connection", "connection", "keep-alive"]) delete headers[name];
  const upstream = http.request({
    host: target.address,
    port,
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
  });
  upstream.on("response", (reply) => {
    reply.on("error", () => response.destroy());
    response.writeHead(reply.statusCode ?? 502, reply.statusMessage, reply.headers);
    reply.pipe(response);
  });
  // A client or server that goes away mid-way ends its other half; no error reaches the harness.
  upstream.on("error", (error) => refuseHttp(response, `${host}:${port}: ${error.message}`, 502));
  request.on("error", () => upstream.destroy());
  response.on("error", () => upstream.destroy());
  response.on("close", () => upstream.destroy());
  request.pipe(upstream);
}

async function openTunnel(
  request: http.IncomingMessage,
  client: net.Socket,
  head: Buffer,
  options: ProxyOptions,
  origin: Origin,
) {
  const authority = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(request.url ?? "");
  if (!authority) return client.end(refusalText(400, `CONNECT takes host:port, not "${request.url}"`));
  const host = normalHost(authority[1] ?? authority[2]);
  const port = Number(authority[3]);
  // A tunnel to a name is recorded as allowed once its ClientHello agrees, below.
  const target = await admit(host, port, "connect", options, origin, false);
  if ("why" in target) return client.end(refusalText(403, target.why));
  client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  let first = head;
  if (target.grant === "name") {
    const hello = await waitForHello(client, head);
    // A client names no server when it connects to an address (RFC 6066 §3: no IP literals in SNI).
    const nameAgrees = (name: string | undefined) =>
      name === undefined ? net.isIP(host) !== 0 : normalHost(name) === host;
    const why =
      hello.kind === "tls"
        ? !nameAgrees(hello.serverName)
          ? `the TLS server name (${hello.serverName ?? "none"}) disagrees with the CONNECT host (${host})`
          : undefined
        : `${host}:${port}: ${hello.kind === "not-tls" ? hello.why : "no ClientHello came"}; a tunnel to a name carries TLS to that name only`;
    if (why) {
      options.record({ host, port, via: "connect", allowed: false, why, ...origin });
      return client.destroy();
    }
    first = hello.bytes;
  }
  options.record({ host, port, via: "connect", allowed: true, ...origin });
  const upstream = net.connect({ host: target.address, port });
  upstream.on("error", () => client.destroy());
  client.on("close", () => upstream.destroy());
  upstream.on("close", () => client.destroy());
  if (first.length > 0) upstream.write(first);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** Judges and resolves a target; records a refusal (and an allowed connection). */
async function admit(
  host: string,
  port: number,
  via: Via,
  options: ProxyOptions,
  origin: Origin,
  recordAllowed = true,
): Promise<{ address: string; grant: "name" | "address" | "loopback" } | { why: string }> {
  const verdict = await options.judge(host, port, via, origin);
  const outcome = verdict.allowed ? await addressFor(host, verdict.grant, options) : verdict;
  if ("why" in outcome) options.record({ host, port, via, allowed: false, why: outcome.why, ...origin });
  else if (recordAllowed) options.record({ host, port, via, allowed: true, ...origin });
  return "why" in outcome ? outcome : { ...outcome, grant: verdict.allowed ? verdict.grant : "name" };
}

/** Where an allowed host is reached: the address checked is the address connected to. */
async function addressFor(
  host: string,
  grant: "name" | "address" | "loopback",
  options: ProxyOptions,
): Promise<{ address: string } | { why: string }> {
  if (grant === "loopback") return { address: isLoopbackHost(host) && host === "::1" ? "::1" : "127.0.0.1" };
  if (grant === "address") return { address: host };
  let addresses: string[];
  try {
    addresses = options.resolve
      ? await options.resolve(host)
      : (await dnsLookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    return { why: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  if (addresses.length === 0) return { why: `${host} does not resolve` };
  for (const address of addresses) {
    const why = options.fakeInternet?.includes(address) ? undefined : whyNotPublic(address);
    if (why)
      return {
        why: `${host} resolves to ${address}, a ${why} address; only a loopback grant (localhost:port) or an address entry reaches one`,
      };
  }
  return { address: addresses[0] };
}

/** The first bytes of a tunnel, up to a whole ClientHello (or proof there is none). */
function waitForHello(
  client: net.Socket,
  head: Buffer,
): Promise<ReturnType<typeof readClientHello> & { bytes: Buffer }> {
  return new Promise((resolve) => {
    let bytes = head;
    const finish = (reading: ReturnType<typeof readClientHello>) => {
      clearTimeout(timer);
      client.off("data", onData);
      client.off("end", onEnd);
      client.pause();
      resolve({ ...reading, bytes });
    };
    const check = () => {
      const reading =
        bytes.length > MAX_HELLO_BYTES
          ? { kind: "not-tls" as const, why: "no ClientHello in 64 KiB" }
          : readClientHello(bytes);
      if (reading.kind !== "more") finish(reading);
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      check();
    };
    const onEnd = () => finish({ kind: "more" });
    const timer = setTimeout(() => finish({ kind: "more" }), HELLO_TIMEOUT_MS);
    client.on("data", onData);
    client.on("end", onEnd);
    if (bytes.length > 0) check();
  });
}

/** Whether a Host header names this host and port (the port may be left out when it is 80). */
function sameAuthority(header: string, host: string, port: number): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(header.trim());
  if (!match) return false;
  return normalHost(match[1] ?? match[2]) === host && Number(match[3] ?? 80) === port;
}

function refuseHttp(response: http.ServerResponse, why: string, status = 403): void {
  if (response.headersSent) return void response.destroy();
  const body = `harness refused this connection: ${why}\n`;
  response.writeHead(status, {
    "content-type": "text/plain",
    "x-harness-refused": encodeURI(why),
    connection: "close",
  });
  response.end(body);
}

function refusalText(status: 400 | 403 | 502, why: string): string {
  const body = `harness refused this connection: ${why}\n`;
  const reason = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" }[status];
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nX-Harness-Refused: ${encodeURI(why)}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
