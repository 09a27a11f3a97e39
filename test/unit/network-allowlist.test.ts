// sandbox.network as settings: entries, matching, the verdict, how files merge (a project narrows,
// widens only when trusted), Claude Code's allowedDomains, and the ClientHello's server name.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import tls from "node:tls";
import type { ApprovalAnswer } from "../../src/permissions/approver.ts";
import { networkQuestion } from "../../src/permissions/network-question.ts";
import { effectiveNetwork, emptyNetworkSettings, trustedNetwork } from "../../src/permissions/network-settings.ts";
import { loadSettings } from "../../src/permissions/permission-settings.ts";
import { SandboxNetwork } from "../../src/permissions/sandbox-network.ts";
import { readClientHello } from "../../src/sandbox/client-hello.ts";
import { judgeAccess, type NetworkAccess } from "../../src/sandbox/network-access.ts";
import { matchingRule, type NetworkRule, parseNetworkRule } from "../../src/sandbox/network-rules.ts";
import type { SandboxPolicy } from "../../src/sandbox/sandbox-policy.ts";
import { webFetch } from "../../src/tools/web-fetch.ts";
import { tempDir } from "../support/helpers.ts";

const rules = (...texts: string[]) => texts.map((text) => parseNetworkRule(text) as NetworkRule);

test("entries: domains, wildcards, ports, addresses and loopback grants; bad ones say why", () => {
  assert.deepEqual(parseNetworkRule("Registry.NPMJS.org."), {
    host: "registry.npmjs.org",
    kind: "name",
    text: "Registry.NPMJS.org.",
  });
  assert.equal((parseNetworkRule("*.githubusercontent.com:443") as NetworkRule).port, 443);
  assert.equal((parseNetworkRule("[2606:2800::1]:443") as NetworkRule).kind, "address");
  assert.equal((parseNetworkRule("127.0.0.1:5432") as NetworkRule).kind, "loopback");
  assert.match(parseNetworkRule("localhost") as string, /names its port/);
  assert.match(parseNetworkRule("*") as string, /not a domain name/);
  assert.match(parseNetworkRule("*.com") as string, /top-level/);
  assert.match(parseNetworkRule("a.example:99999") as string, /1 to 65535/);
  assert.match(parseNetworkRule("http://a.example") as string, /not a domain/);
});

test("matching: a wildcard is subdomains only, a port narrows, names never match addresses", () => {
  const list = rules("*.example.com", "api.test:443", "93.184.216.34", "localhost:5432");
  assert.equal(matchingRule(list, "a.b.example.com", 80)?.text, "*.example.com");
  assert.equal(matchingRule(list, "example.com", 80), undefined);
  assert.equal(matchingRule(list, "evilexample.com", 80), undefined);
  assert.equal(matchingRule(list, "API.test.", 443)?.text, "api.test:443");
  assert.equal(matchingRule(list, "api.test", 80), undefined);
  assert.equal(matchingRule(list, "93.184.216.34", 443)?.kind, "address");
  assert.equal(matchingRule(list, "::1", 5432)?.kind, "loopback");
  assert.equal(matchingRule(list, "localhost", 5433), undefined);
  for (const alias of ["127.1", "0x7f000001", "2130706433", "127.0.0.2", "0.0.0.0", "::ffff:127.0.0.1"])
    assert.equal(matchingRule(list, alias, 5432), undefined, alias);
});

test("the verdict: denied wins, 'on' reaches no address or loopback, each project list narrows", () => {
  const access: NetworkAccess = {
    allowed: "on",
    narrowedBy: [{ file: "p/.harness/settings.json", rules: rules("*.npmjs.org") }],
    denied: rules("evil.npmjs.org"),
  };
  assert.deepEqual(judgeAccess(access, "registry.npmjs.org", 443), { allowed: true, grant: "name" });
  assert.match((judgeAccess(access, "evil.npmjs.org", 443) as { why: string }).why, /deniedDomains/);
  assert.match((judgeAccess(access, "pypi.org", 443) as { why: string }).why, /list of p\/\.harness/);
  assert.match((judgeAccess(access, "1.1.1.1", 443) as { why: string }).why, /IP address/);
  assert.match((judgeAccess(access, "localhost", 80) as { why: string }).why, /this machine/);
});

test("settings merge: the user's list holds, a project narrows it, and widens only once trusted", () => {
  const home = tempDir();
  const project = tempDir();
  mkdirSync(join(home, ".harness"));
  writeFileSync(
    join(home, ".harness", "settings.json"),
    JSON.stringify({ sandbox: { network: ["registry.npmjs.org", "github.com"] } }),
  );
  mkdirSync(join(project, ".claude"));
  writeFileSync(
    join(project, ".claude", "settings.json"),
    JSON.stringify({
      sandbox: { enabled: true, network: { allowedDomains: ["github.com", "pypi.org"], allowLocalBinding: true } },
    }),
  );
  mkdirSync(join(project, ".harness"));
  writeFileSync(join(project, ".harness", "settings.json"), JSON.stringify({ sandbox: { network: "on" } }));
  const env = { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const settings = loadSettings(project, join(home, ".harness"), env);
  assert.match(settings.ignored.join("\n"), /sandbox\.network "on" is ignored/);
  assert.match(settings.ignored.join("\n"), /sandbox\.enabled .*sandbox\.network\.allowLocalBinding/);
  const untrusted = effectiveNetwork(settings.network, false) as NetworkAccess;
  assert.equal(judgeAccess(untrusted, "github.com", 443).allowed, true);
  assert.equal(judgeAccess(untrusted, "registry.npmjs.org", 443).allowed, false, "narrowed by the project");
  assert.equal(judgeAccess(untrusted, "pypi.org", 443).allowed, false, "not widened without trust");
  const trusted = trustedNetwork(settings.network, false) as NetworkAccess;
  assert.equal(judgeAccess(trusted, "pypi.org", 443).allowed, true, "widened once trusted");
  assert.equal(effectiveNetwork(settings.network, true) === true, false, "--allow-network is still narrowed");
  writeFileSync(join(project, ".harness", "settings.json"), JSON.stringify({ sandbox: { network: ["*"] } }));
  assert.throws(
    () => loadSettings(project, join(home, ".harness"), env),
    /\.harness\/settings\.json: sandbox\.network\[0\]/,
  );
  writeFileSync(join(project, ".harness", "settings.json"), JSON.stringify({ sandbox: { network: false } }));
  assert.equal(effectiveNetwork(loadSettings(project, join(home, ".harness"), env).network, true), false);
});

test("the server name is read from a real ClientHello, whole or in pieces; other bytes are not TLS", async () => {
  const hello = await new Promise<Buffer>((resolve) => {
    const server = net.createServer((socket) => {
      socket.once("data", (chunk) => {
        resolve(chunk);
        socket.destroy();
        server.close();
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      tls.connect({ host: "127.0.0.1", port, servername: "registry.npmjs.org" }).on("error", () => {});
    });
  });
  assert.deepEqual(readClientHello(hello), { kind: "tls", serverName: "registry.npmjs.org" });
  assert.deepEqual(readClientHello(hello.subarray(0, 40)), { kind: "more" });
  assert.equal(readClientHello(Buffer.from("GET / HTTP/1.1\r\nHost: evil\r\n\r\n")).kind, "not-tls");
});

test("a connection the list does not name is asked once (parallel ones share the question); answers last the session", async () => {
  const settings = emptyNetworkSettings();
  settings.user = [parseNetworkRule("registry.npmjs.org") as NetworkRule];
  const policy = { network: false } as SandboxPolicy;
  const network = new SandboxNetwork(settings, false, policy, {});
  const questions: string[] = [];
  const answers: Record<string, ApprovalAnswer> = {
    "network> pypi.org:443": { type: "always" },
    "network> evil.example:443": { type: "no" },
    "network> once.example:80": { type: "yes" },
  };
  network.ask = networkQuestion(async (question) => {
    questions.push(question.summary);
    return answers[question.summary];
  }, false);
  const [first, second] = await Promise.all([
    network.judge("pypi.org", 443, "connect"),
    network.judge("pypi.org", 443, "connect"),
  ]);
  assert.equal(first.allowed && second.allowed, true);
  assert.equal((await network.judge("pypi.org", 443, "connect")).allowed, true);
  assert.deepEqual(await network.judge("evil.example", 443, "connect"), {
    allowed: false,
    why: "evil.example:443: you refused it",
  });
  assert.equal((await network.judge("evil.example", 443, "connect")).allowed, false, "no asks no more");
  assert.equal((await network.judge("once.example", 80, "http")).allowed, true);
  assert.equal((await network.judge("once.example", 80, "http")).allowed, true);
  assert.equal((await network.judge("registry.npmjs.org", 443, "connect")).allowed, true);
  assert.deepEqual(questions, [
    "network> pypi.org:443",
    "network> evil.example:443",
    "network> once.example:80",
    "network> once.example:80",
  ]);
  network.ask = undefined;
  const headless = (await network.judge("other.example", 443, "connect")) as { why: string };
  assert.match(headless.why, /other\.example:443 is not on the sandbox\.network list/);
});

test("web_fetch follows the list: a host it does not name is not fetched, before any connection", async () => {
  const settings = emptyNetworkSettings();
  settings.user = [parseNetworkRule("docs.example") as NetworkRule];
  const network = new SandboxNetwork(settings, false, { network: false } as SandboxPolicy, {});
  const output = await webFetch.run(
    { url: "http://127.0.0.1:9/secret" },
    { cwd: "/", signal: new AbortController().signal, state: new Map(), network },
  );
  assert.equal(typeof output === "object" && output.isError, true);
  assert.match(
    typeof output === "string" ? output : output.content,
    /Not fetched: 127\.0\.0\.1:9 is not on the sandbox\.network list \(web_fetch follows sandbox\.network/,
  );
});
