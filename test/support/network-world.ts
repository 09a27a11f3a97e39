// A small fake internet for the network allowlist's attack tests, on loopback addresses of this
// machine (the only addresses tests may use): "public" hosts on 127.0.0.2 and 127.0.0.3, which
// the proxy is told stand for the internet (network-runner.ts), and the host's own services on
// 127.0.0.1, which stay loopback to every check. Each server counts what reaches it, so a test
// asserts that a refused connection never arrived.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createSocket } from "node:dgram";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { selfSignedCertificate } from "./proxy-server.ts";
import { onTestEnd } from "./teardown.ts";

export interface NetworkWorld {
  /** 127.0.0.2: plain HTTP (echo, a git repository, an npm registry) and HTTPS for allowed.example. */
  httpPort: number;
  httpsPort: number;
  /** 127.0.0.3: a host no list allows; `hits` counts what reached it. */
  deniedPort: number;
  /** 127.0.0.1: a service of the host no grant covers, and one a loopback grant covers. */
  secretPort: number;
  grantedPort: number;
  /** 127.0.0.2 UDP: datagrams that reached it. */
  udpPort: number;
  hits: { denied: number; secret: number; udp: number; granted: number };
  /** The certificate of allowed.example (PEM), for curl's --cacert. */
  certificate: string;
}

/** Starts the hosts; `folder` holds the git repository, the npm tarball and the certificate (`app/` gets the npm project). */
export async function startNetworkWorld(folder: string, app: string): Promise<NetworkWorld> {
  const hits = { denied: 0, secret: 0, udp: 0, granted: 0 };
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const serve = async (server: Server, address: string) => {
    server.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  const repo = makeGitRepository(folder);
  const registry = makeNpmPackage(folder);
  const [key, certificate] = makeCertificate(folder);
  const httpPort = await serve(
    createHttpServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0];
      if (path.startsWith("/repo.git/")) return serveFile(response, join(repo, path.slice("/repo.git/".length)));
      if (path === "/tiny/-/tiny-1.0.0.tgz") return response.end(registry.tarball);
      // The npm registry's answer for a package it does not have (https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md).
      if (path.startsWith("/tiny") || request.headers.host?.startsWith("registry."))
        return response.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
      response.end(`public:${request.headers.host}\n`);
    }),
    "127.0.0.2",
  );
  const httpsPort = await serve(
    createHttpsServer({ key, cert: certificate }, (request, response) => response.end(`tls:${request.headers.host}\n`)),
    "127.0.0.2",
  );
  const deniedPort = await serve(
    createHttpServer((_request, response) => {
      response.end("DENIED HOST REACHED\n");
    }),
    "127.0.0.3",
  );
  const secretPort = await serve(
    createHttpServer((_request, response) => {
      response.end("HOST SECRET REACHED\n");
    }),
    "127.0.0.1",
  );
  const grantedPort = await serve(
    createHttpServer((_request, response) => {
      hits.granted++;
      response.end("granted-db\n");
    }),
    "127.0.0.1",
  );
  // Connections that never sent a request count too: denied and secret count connections, not requests.
  servers[2].on("connection", () => hits.denied++);
  servers[3].on("connection", () => hits.secret++);
  const udp = createSocket("udp4");
  udp.on("message", () => hits.udp++);
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.2", resolve));
  onTestEnd(() => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) server.close();
    udp.close();
  });
  const tarballUrl = `http://registry.npmjs.org:${httpPort}/tiny/-/tiny-1.0.0.tgz`;
  writeNpmProject(app, tarballUrl, registry.integrity);
  return {
    httpPort,
    httpsPort,
    deniedPort,
    secretPort,
    grantedPort,
    udpPort: (udp.address() as AddressInfo).port,
    hits,
    certificate: certificate.toString(),
  };
}

function serveFile(response: import("node:http").ServerResponse, file: string): void {
  try {
    response.end(readFileSync(file));
  } catch {
    response.writeHead(404).end("not found\n");
  }
}

/** A bare repository served as files ("dumb" HTTP: git-http-backend is not needed for a clone). */
function makeGitRepository(folder: string): string {
  const work = join(folder, "git-work");
  const bare = join(folder, "repo.git");
  mkdirSync(work);
  writeFileSync(join(work, "README"), "cloned through the proxy\n");
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], {
      cwd,
      stdio: "ignore",
    });
  git(work, "init", "-q");
  git(work, "add", ".");
  git(work, "commit", "-q", "-m", "one");
  git(folder, "clone", "-q", "--bare", work, bare);
  git(bare, "update-server-info");
  return bare;
}

/** One package's tarball, as `npm pack` lays it out (a `package/` folder). */
function makeNpmPackage(folder: string): { tarball: Buffer; integrity: string } {
  const source = join(folder, "tiny-src", "package");
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, "package.json"), JSON.stringify({ name: "tiny", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(source, "index.js"), 'module.exports = "tiny installed through the proxy";\n');
  const file = join(folder, "tiny-1.0.0.tgz");
  execFileSync("tar", ["czf", file, "-C", join(folder, "tiny-src"), "package"]);
  const tarball = readFileSync(file);
  return { tarball, integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}` };
}

/** A project whose lock file names the tarball on the fake registry, for `npm ci`. */
function writeNpmProject(app: string, tarballUrl: string, integrity: string): void {
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "app", version: "1.0.0", dependencies: { tiny: "1.0.0" } }),
  );
  const lock = {
    name: "app",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "app", version: "1.0.0", dependencies: { tiny: "1.0.0" } },
      "node_modules/tiny": { version: "1.0.0", resolved: tarballUrl, integrity },
    },
  };
  writeFileSync(join(app, "package-lock.json"), JSON.stringify(lock, null, 2));
}

/** The certificate of allowed.example and its key. */
function makeCertificate(folder: string): [Buffer, Buffer] {
  const { key, cert } = selfSignedCertificate(folder, "allowed.example", "DNS:allowed.example");
  return [readFileSync(key), readFileSync(cert)];
}
