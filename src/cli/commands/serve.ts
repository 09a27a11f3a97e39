// `harness serve`: holds sessions and serves them over HTTP (src/server/, docs/serve.md), on
// loopback unless --listen names another address, which also needs --allow-remote and serves
// HTTPS: with the user's certificate, or a self-signed one whose fingerprint is printed. A token made at start is printed once and kept in $HARNESS_HOME/serve.json (0600)
// for `harness attach`; the file goes when the server stops.
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { showControlChars } from "../../shared/control-chars.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../../shared/private-files.ts";
import { stateDir } from "../../wiring/defaults.ts";
import { PROVIDER_FLAGS, parseFlags, UsageError } from "../cli-args.ts";
import { serveHostFor } from "./serve-host.ts";

const HELP = `Usage: harness serve [--port <n>] [--listen <address>] [--allow-remote --tls-cert <file> --tls-key <file>]
                    [--approve <mode>] [--sandbox <on|off>] [--allow-network] [--trust] [--allow-home]
                    [--provider <name>] [--model <name>] [--base-url <url>] [--api <wire>]
                    [--thinking <level>] [--max-turns <n>]

Holds sessions and serves them over HTTP: a JSON API, an event stream per session (Server-Sent
Events, the events of docs/events.md) and a web page. Watch and steer them with
\`harness attach\`, a browser or the client library (docs/serve.md).
  --port <n>          the port (default 7433; 0 picks a free one)
  --listen <address>  the address to listen on (default 127.0.0.1). Any other than loopback
                      needs --allow-remote, and serves HTTPS: --tls-cert/--tls-key, or else a
                      self-signed certificate whose fingerprint is printed
  --allow-remote      listen on an address other machines can reach
  --tls-cert <file>   the certificate (PEM) to serve HTTPS with; --tls-key <file> its key
  --approve <mode>    the widest approval mode a session may have (default ask); a client may
                      ask for a narrower one, never a wider one
  --sandbox, --allow-network, --trust, --allow-home, provider flags: as for a run, for every session
Every request needs the token printed at start (also in $HARNESS_HOME/serve.json, readable only
by you): Authorization: Bearer <token>.
`;

export const SERVE_FLAGS = [
  ...PROVIDER_FLAGS,
  "port",
  "listen",
  "allow-remote",
  "tls-cert",
  "tls-key",
  "approve",
  "sandbox",
  "allow-network",
  "trust",
  "allow-home",
  "help",
] as const;

const DEFAULT_PORT = 7433;
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function run(argv: string[]): Promise<number> {
  let flags;
  try {
    ({ flags } = parseFlags(argv, SERVE_FLAGS));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`harness serve: ${showControlChars(error.message)}\nTry 'harness serve --help'.\n`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const listen = flags.listen ?? "127.0.0.1";
  const usage = (message: string) => {
    process.stderr.write(`harness serve: ${message}\n`);
    return 2;
  };
  let tls: { key: Buffer; cert: Buffer } | undefined;
  if ((flags["tls-cert"] === undefined) !== (flags["tls-key"] === undefined))
    return usage("--tls-cert and --tls-key go together");
  if (flags["tls-cert"] && flags["tls-key"]) {
    try {
      tls = { cert: readFileSync(flags["tls-cert"]), key: readFileSync(flags["tls-key"]) };
    } catch (error) {
      return usage(`cannot read the certificate or key: ${(error as Error).message}`);
    }
  }
  if (!LOOPBACK.has(listen)) {
    if (!flags["allow-remote"])
      return usage(
        `--listen ${showControlChars(listen)} is reachable from other machines: add --allow-remote to mean it`,
      );
  }
  // Off loopback without the user's certificate: a self-signed one, made now (its key stays in memory).
  const selfSigned = !LOOPBACK.has(listen) && !tls ? await makeSelfSigned(listen) : undefined;
  if (selfSigned) tls = { cert: Buffer.from(selfSigned.cert), key: Buffer.from(selfSigned.key) };
  const env = process.env;
  const [{ startServer }, { makeToken }, { servePage }] = await Promise.all([
    import("../../server/http-server.ts"),
    import("../../server/request-guard.ts"),
    import("../../server/web-page.ts"),
  ]);
  const token = makeToken();
  const serveHost = serveHostFor(
    {
      choice: {
        provider: flags.provider,
        model: flags.model,
        baseUrl: flags["base-url"],
        api: flags.api,
        thinking: flags.thinking,
      },
      maxTurns: flags["max-turns"],
      permissions: { approve: flags.approve ?? "ask", sandbox: flags.sandbox, allowNetwork: flags["allow-network"] },
      trust: Boolean(flags.trust),
      allowHome: Boolean(flags["allow-home"]),
    },
    env,
  );
  let server;
  try {
    server = await startServer({
      host: listen,
      port: flags.port ?? DEFAULT_PORT,
      token,
      serveHost,
      tls,
      page: servePage(),
    });
  } catch (error) {
    process.stderr.write(`harness serve: cannot listen on ${showControlChars(listen)}: ${(error as Error).message}\n`);
    return 1;
  }
  const file = writeServeFile(env, { url: server.url, token, pid: process.pid });
  let certificate = "";
  if (selfSigned) {
    const certFile = join(stateDir(env), "serve-cert.pem");
    writeFileSync(certFile, selfSigned.cert);
    certificate = `certificate: self-signed, SHA-256 fingerprint ${selfSigned.fingerprint}\n(check it where you connect; the certificate is in ${certFile})\n`;
  }
  process.stdout.write(
    `${certificate}harness serve: listening on ${server.url}\ntoken: ${token}\nopen: ${server.url}#token=${token}\n(the token is also in ${file}, readable only by you)\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  removeServeFile(file, token);
  await server.close();
  return 0;
}

/** Where `harness attach` finds the server: its address and token, readable only by this user. */
/** A self-signed certificate naming this machine: the address listened on, and the names it is reached by. */
async function makeSelfSigned(listen: string) {
  const { machineNames } = await import("../../server/request-guard.ts");
  const { selfSignedCertificate } = await import("../../shared/self-signed.ts");
  const wildcard = listen === "0.0.0.0" || listen === "::";
  // Dotted IPv6 forms (::ffff:1.2.3.4) are left out: a certificate names them as IPv6 bytes.
  const names = [...new Set([...(wildcard ? [] : [listen]), ...machineNames()])].filter((name) => !/:.*\./.test(name));
  return selfSignedCertificate(names);
}

export function serveFileOf(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "serve.json");
}

function writeServeFile(env: NodeJS.ProcessEnv, record: { url: string; token: string; pid: number }): string {
  makePrivateFolder(stateDir(env));
  const file = serveFileOf(env);
  // Made anew (never written through a link someone left there), 0600 whatever the umask.
  try {
    unlinkSync(file);
  } catch {
    // none yet
  }
  writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE, flag: "wx" });
  return file;
}

/** Removes the file if it is still this server's (another server may have started since). */
function removeServeFile(file: string, token: string): void {
  try {
    if (JSON.parse(readFileSync(file, "utf8")).token === token) unlinkSync(file);
  } catch {
    // gone already
  }
}
