// A small HTTP proxy on 127.0.0.1 for the proxy tests: absolute-form requests (`GET http://...`,
// what a client sends an HTTP_PROXY for an http URL) are forwarded, CONNECT (HTTPS_PROXY) opens a
// plain TCP tunnel. It records what passed; it never reaches anything but loopback. And a TLS
// front with a throwaway self-signed certificate, so an https URL can reach the fake model server.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { type AddressInfo, connect, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { tempDir } from "./helpers.ts";
import { onTestEnd } from "./teardown.ts";

export interface TestProxy {
  url: string;
  /** One line per request or tunnel: `POST http://127.0.0.1:1234/v1/chat/completions`, `CONNECT 127.0.0.1:443`. */
  seen: string[];
  /** The Proxy-Authorization header of each, in the same order ("" when none). */
  authorizations: string[];
  /** TCP connections clients opened to the proxy (a CONNECT tunnel is one). */
  connections: number;
}

/** Starts the proxy; it closes when the test ends. */
export async function startProxy(): Promise<TestProxy> {
  const seen: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    authorizations.push(req.headers["proxy-authorization"] ?? "");
    const target = new URL(req.url ?? "");
    if (!isLoopback(target.hostname)) return void res.writeHead(403).end("this proxy reaches loopback only");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const proxy: TestProxy = { url: "", seen, authorizations, connections: 0 };
  server.on("connection", (socket: Socket) => {
    proxy.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    authorizations.push(req.headers["proxy-authorization"] ?? "");
    const { hostname, port } = new URL(`http://${req.url}`);
    if (!isLoopback(hostname)) return void client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    const upstream = connect(Number(port), hostname.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await listen(server);
  onTestEnd(() => close(server, sockets));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A TLS server on 127.0.0.1 passing each connection on to `port` in the clear; `caFile` is its certificate. */
export async function startTlsFront(port: number): Promise<{ url: string; caFile: string }> {
  const folder = tempDir("harness-tls-");
  const { key, cert } = selfSignedCertificate(folder, "127.0.0.1", "IP:127.0.0.1");
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (client) => {
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await listen(server);
  onTestEnd(() => close(server, sockets));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile: cert };
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

async function close(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
}

/** A one-day self-signed certificate, made fresh in `folder` (no key material lives in the repository); the paths of its PEM files. */
export function selfSignedCertificate(
  folder: string,
  name: string,
  subjectAltName: string,
): { key: string; cert: string } {
  const [key, cert] = [join(folder, "key.pem"), join(folder, "cert.pem")];
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=${name}`],
      ...["-addext", `subjectAltName=${subjectAltName}`, "-keyout", key, "-out", cert],
    ],
    { stdio: "ignore" },
  );
  return { key, cert };
}
