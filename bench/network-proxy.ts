// What the network allowlist's proxy (src/sandbox/network-proxy.ts) adds per connection:
//   node --import tsx bench/network-proxy.ts
// A server on 127.0.0.2 stands for an allowed public host (the proxy is told so, as in the attack
// tests); each round opens a new connection and fetches one small response, directly and through
// the proxy's unix socket (plain HTTP, and a CONNECT tunnel carrying TLS, whose ClientHello the
// proxy reads). Prints medians and 90th percentiles in ms; figures, not thresholds. Inside the
// sandbox the command helper's relay adds one more local hop (a TCP accept and a unix connect),
// its look-up of the command in /proc, and its first line, which the session's proxy answers
// before any HTTP (the "relay's line" row: sandbox/relay-origin.ts). Part of `npm run bench`.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { startNetworkProxy } from "../src/sandbox/network-proxy.ts";
import { selfSignedCertificate } from "../test/support/proxy-server.ts";

const ROUNDS = 300;
const folder = mkdtempSync(join(tmpdir(), "bench-network-"));
const { key, cert } = selfSignedCertificate(folder, "allowed.example", "DNS:allowed.example");
const plain = http.createServer((_request, response) => response.end("ok"));
const secure = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_q, response) =>
  response.end("ok"),
);
await new Promise<void>((resolve) => plain.listen(0, "127.0.0.2", resolve));
await new Promise<void>((resolve) => secure.listen(0, "127.0.0.2", resolve));
const plainPort = (plain.address() as AddressInfo).port;
const securePort = (secure.address() as AddressInfo).port;
const proxy = startNetworkProxy({
  socketPath: join(folder, "proxy.sock"),
  judge: () => ({ allowed: true, grant: "name" }),
  record: () => {},
  resolve: async () => ["127.0.0.2"],
  fakeInternet: ["127.0.0.2"],
});

const relayed = startNetworkProxy({
  socketPath: join(folder, "relayed.sock"),
  judge: () => ({ allowed: true, grant: "name" }),
  record: () => {},
  resolve: async () => ["127.0.0.2"],
  fakeInternet: ["127.0.0.2"],
  relayToken: "bench-token",
});

/** As the relay does: the line with the token and the command, the proxy's OK, then a plain HTTP request. */
const withRelayLine = () =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(relayed.socketPath);
    socket.write(`HARNESS-RELAY bench-token ${Buffer.from('{"command":"curl"}').toString("base64")}\n`);
    socket.once("data", (ok) => {
      if (ok.toString() !== "OK\n") return reject(new Error(ok.toString()));
      socket.write(
        `GET http://allowed.example:${plainPort}/ HTTP/1.1\r\nHost: allowed.example:${plainPort}\r\nConnection: close\r\n\r\n`,
      );
      socket.resume();
    });
    socket.on("end", resolve);
    socket.on("error", reject);
  });

const get = (options: http.RequestOptions, client: typeof http | typeof https = http) =>
  new Promise<void>((resolve, reject) => {
    client
      .get({ agent: false, ...options }, (response) => {
        response.resume();
        response.on("end", resolve);
      })
      .on("error", reject);
  });

/** A CONNECT through the socket, then TLS to allowed.example inside it. */
const tunnel = () =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(proxy.socketPath);
    socket.write(`CONNECT allowed.example:${securePort} HTTP/1.1\r\nHost: allowed.example:${securePort}\r\n\r\n`);
    socket.once("data", (reply) => {
      if (!reply.toString().startsWith("HTTP/1.1 200")) return reject(new Error(reply.toString()));
      const secured = tls.connect({ socket, servername: "allowed.example", ca: readFileSync(cert) });
      secured.on("secureConnect", () => {
        secured.write("GET / HTTP/1.1\r\nHost: allowed.example\r\nConnection: close\r\n\r\n");
        secured.resume();
        secured.on("end", resolve);
      });
      secured.on("error", reject);
    });
  });

async function time(label: string, once: () => Promise<void>) {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  console.log(`${label.padEnd(44)} median ${at(0.5)} ms   p90 ${at(0.9)} ms`);
}

await time("HTTP, direct", () => get({ host: "127.0.0.2", port: plainPort }));
await time("HTTP, through the proxy", () =>
  get({
    socketPath: proxy.socketPath,
    path: `http://allowed.example:${plainPort}/`,
    headers: { host: `allowed.example:${plainPort}` },
  }),
);
await time("HTTP, through the proxy, with the relay's line", withRelayLine);
await time("HTTPS, direct", () =>
  get(
    {
      host: "127.0.0.2",
      port: securePort,
      servername: "allowed.example",
      ca: readFileSync(cert),
    } as https.RequestOptions,
    https,
  ),
);
await time("HTTPS, CONNECT tunnel through the proxy", tunnel);
proxy.close();
relayed.close();
plain.close();
secure.close();
rmSync(folder, { recursive: true, force: true });
