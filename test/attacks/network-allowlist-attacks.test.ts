// The network allowlist from the attacker's side (docs/network.md): with `sandbox.network` a
// list, the allowed hosts work for curl (HTTP, HTTPS), git and npm ci, and each published bypass
// of other sandboxes' allowlists fails with a refusal, as root and as nobody.
//
// *Decision*: the fake internet lives on this machine's loopback addresses (127.0.0.2 and
// 127.0.0.3 stand for public hosts, 127.0.0.1 is the host's own services), and the proxy is
// given the test's name table and told which of those addresses stand for the internet
// (ProxyOptions.resolve and fakeInternet, options the CLI never sets). The alternative, a
// network namespace per test with a public-looking address and a private /etc/hosts, would need
// a mount namespace around the whole harness process as nobody; the proxy's checks are the same
// code either way, and 127.0.0.1 stays loopback to them, which is what the private-address
// attacks need. The sandbox, its namespace and the relay are the real ones.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { startNetworkWorld } from "../support/network-world.ts";
import { needs } from "../support/system-programs.ts";

const missing = needs("bwrap", "openssl", "curl");

for (const identity of IDENTITIES) {
  test(`as ${identity}: allowed hosts work through the proxy, and every bypass is refused`, {
    skip: missing || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-network-");
    const workspace = join(home, "work");
    mkdirSync(join(home, ".harness"), { recursive: true });
    mkdirSync(workspace);
    const world = await startNetworkWorld(home, workspace);
    writeFileSync(join(workspace, "allowed.pem"), world.certificate);
    const { httpPort: web, httpsPort: tls, deniedPort: denied, secretPort: secret, grantedPort: granted } = world;
    writeFileSync(
      join(home, ".harness", "settings.json"),
      JSON.stringify({
        sandbox: {
          network: [
            "allowed.example",
            "registry.npmjs.org",
            "rebind.example",
            "private.example",
            "v6.example",
            `localhost:${granted}`,
          ],
        },
      }),
    );
    handTo(identity, home);
    const curl = "curl -sS --max-time 20";
    const commands: Record<string, string> = {
      http: `${curl} http://allowed.example:${web}/hello`,
      https: `${curl} --cacert allowed.pem https://allowed.example:${tls}/`,
      git: `git clone -q http://allowed.example:${web}/repo.git cloned 2>&1 && cat cloned/README`,
      npm: `npm ci --no-audit --no-fund --cache "$PWD/.npm-cache" --registry http://registry.npmjs.org:${web}/ 2>&1 && node -p 'require("tiny")'`,
      plainDenied: `${curl} http://denied.example:${denied}/`,
      connectDenied: `${curl} -k https://denied.example:${denied}/ 2>&1`,
      sniMismatch: `openssl s_client -proxy 127.0.0.1:3128 -connect allowed.example:${tls} -servername denied.example </dev/null 2>&1 | head -3; echo done`,
      hostMismatch: `${curl} -H 'Host: denied.example:${denied}' http://allowed.example:${web}/`,
      ipLiteral: `${curl} http://127.0.0.2:${web}/; ${curl} -k https://127.0.0.2:${tls}/ 2>&1`,
      privateName: `${curl} http://private.example:${secret}/`,
      rebinding: `${curl} http://rebind.example:${web}/; ${curl} http://rebind.example:${secret}/`,
      ipv6: `${curl} "http://[::1]:${secret}/"; ${curl} -g "http://[::ffff:127.0.0.1]:${secret}/"; ${curl} http://v6.example:${secret}/`,
      aliases: [
        "localhost",
        "LOCALHOST",
        "localhost.",
        "127.1",
        "0x7f000001",
        "2130706433",
        "0.0.0.0",
        "127.0.0.1.nip.io",
      ]
        .map((alias) => `${curl} http://${alias}:${secret}/ 2>&1`)
        .join("; "),
      direct: `env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy ${curl} http://127.0.0.2:${web}/ 2>&1; ${curl} --noproxy '*' http://allowed.example:${web}/ 2>&1; ${curl} --noproxy '*' http://127.0.0.1:${secret}/ 2>&1`,
      rawSockets: `(exec 3<>/dev/tcp/127.0.0.2/${web}) 2>&1; echo tcp=$?; (exec 3<>/dev/tcp/127.0.0.1/${secret}) 2>&1; echo tcp=$?; echo leak > /dev/udp/127.0.0.2/${world.udpPort}; echo udp-sent`,
      relayConnect: `${curl} -p http://allowed.example:${web}/ 2>&1; ${curl} -p http://localhost:3128/ 2>&1; exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT allowed.example:${web} HTTP/1.1\\r\\n\\r\\nCONNECT denied.example:${denied} HTTP/1.1\\r\\n\\r\\n' >&3 && timeout 20 cat <&3; echo end`,
      keepAlive: `${curl} http://allowed.example:${web}/first http://denied.example:${denied}/second`,
      socketDirect: `${curl} --unix-socket /tmp/.harness-network.sock http://denied.example:${denied}/`,
      loopbackGrant: `${curl} http://localhost:${granted}/; exec 3<>/dev/tcp/127.0.0.1/${granted} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    };
    const spec = {
      cwd: workspace,
      home,
      hosts: {
        "allowed.example": ["127.0.0.2"],
        "registry.npmjs.org": ["127.0.0.2"],
        "denied.example": ["127.0.0.3"],
        "private.example": ["127.0.0.1"],
        "rebind.example": ["127.0.0.2", "127.0.0.1"],
        "v6.example": ["::1"],
      },
      fakeInternet: ["127.0.0.2", "127.0.0.3"],
      commands: Object.values(commands),
      env: { GIT_CONFIG_NOSYSTEM: "1" },
    };
    const result = await runRunner(identity, spec);
    const out = Object.fromEntries(Object.keys(commands).map((name, index) => [name, result.outputs[index]]));
    if (process.env.NETWORK_ATTACKS_DUMP)
      writeFileSync(process.env.NETWORK_ATTACKS_DUMP, JSON.stringify({ out, result }, null, 1));
    const refused = (text: string) => (text.match(/harness refused this connection/g) ?? []).length;

    assert.match(out.http, /public:allowed\.example:\d+\n/, out.http);
    assert.match(out.https, /tls:allowed\.example:\d+\n/, out.https);
    assert.match(out.git, /cloned through the proxy/, out.git);
    assert.match(out.npm, /tiny installed through the proxy/, out.npm);
    assert.match(out.plainDenied, /denied\.example:\d+ is not on the sandbox\.network list/);
    assert.match(
      out.plainDenied,
      /\[network: refused denied\.example:\d+ \(denied\.example:\d+ is not on the sandbox\.network list\)\]/,
      "the command's result names what it was refused",
    );
    assert.match(out.connectDenied, /CONNECT tunnel failed, response 403/);
    assert.doesNotMatch(out.sniMismatch, /BEGIN CERTIFICATE|tls:/);
    assert.match(out.hostMismatch, /the Host header \(denied\.example:\d+\) disagrees/);
    assert.match(out.ipLiteral, /127\.0\.0\.2:\d+ is not on the sandbox\.network list/);
    assert.match(out.ipLiteral, /CONNECT tunnel failed, response 403/);
    assert.match(out.privateName, /resolves to 127\.0\.0\.1, a loopback address/);
    assert.match(
      out.rebinding,
      /public:rebind\.example:\d+\n/,
      "the first answer, public, is the address connected to",
    );
    assert.match(out.rebinding, /rebind\.example resolves to 127\.0\.0\.1/, "the second answer is checked again");
    assert.equal(refused(out.ipv6), 3, out.ipv6);
    assert.match(out.ipv6, /v6\.example resolves to ::1/);
    assert.equal(refused(out.aliases), 8, out.aliases);
    assert.doesNotMatch(out.direct, /public:|SECRET/);
    assert.match(out.direct, /Couldn't connect to server|Could not resolve host/);
    assert.equal((out.rawSockets.match(/tcp=1/g) ?? []).length, 2, out.rawSockets);
    assert.match(out.relayConnect, /CONNECT tunnel failed, response 403/, "CONNECT to the proxy's own port");
    assert.doesNotMatch(out.relayConnect, /DENIED|public:/);
    assert.match(
      out.keepAlive,
      /public:allowed\.example:\d+\n[\s\S]*denied\.example:\d+ is not on the sandbox\.network list/,
    );
    assert.match(
      out.socketDirect,
      /harness refused this connection: this socket takes connections from the command helper's relay only/,
      "the socket itself takes only the relay's connections, which carry the session's token",
    );
    assert.equal((out.loopbackGrant.match(/granted-db/g) ?? []).length, 2, out.loopbackGrant);

    assert.deepEqual(
      { denied: world.hits.denied, secret: world.hits.secret, udp: world.hits.udp },
      { denied: 0, secret: 0, udp: 0 },
      "no refused connection arrived",
    );
    const refusals = result.refusals.join("\n");
    assert.match(
      refusals,
      /the TLS server name \(denied\.example\) disagrees with the CONNECT host \(allowed\.example\)/,
    );
    assert.match(
      refusals,
      /allowed\.example:\d+: the tunnel's first bytes are not a TLS handshake/,
      "plain bytes in a tunnel",
    );
    assert.match(refusals, /network: refused denied\.example:\d+/);
    const allowed = result.records.filter((record) => record.allowed).map((record) => record.host);
    assert.ok(allowed.includes("registry.npmjs.org") && allowed.includes("allowed.example"), allowed.join());
    // Each connection names the command whose process opened it, and the program that did.
    const npmRecord = result.records.find((record) => record.host === "registry.npmjs.org");
    assert.equal(npmRecord?.command, commands.npm);
    assert.match(npmRecord?.process ?? "", /npm/);
    const httpsRecord = result.records.find((record) => record.via === "connect" && record.host === "allowed.example");
    assert.equal(httpsRecord?.command, commands.https);
    assert.match(refusals, new RegExp(`network: refused denied\\.example:\\d+ for ${literal(commands.plainDenied)}`));
  });
}

interface RunnerResult {
  outputs: string[];
  records: {
    host: string;
    port: number;
    via: string;
    allowed: boolean;
    why?: string;
    command?: string;
    process?: string;
  }[];
  refusals: string[];
}

/** network-runner.ts as `identity`, with node and tsx as the test's own. */
async function runRunner(identity: (typeof IDENTITIES)[number], spec: object): Promise<RunnerResult> {
  const runner = join(ROOT, "test", "support", "network-runner.ts");
  const [program, ...args] = [...runAs(identity), process.execPath, "--import", "tsx", runner, JSON.stringify(spec)];
  const child = spawn(program, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as RunnerResult;
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
