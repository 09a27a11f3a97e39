// Runs commands in the real bubblewrap sandbox with a network allowlist, set up as the CLI sets
// it up (setupPermissions, the bash tool, the session's proxy), as whoever runs this script: the
// attack tests run it as root and as nobody. Prints one JSON line: each command's output, the
// proxy's records and the refusals named as they happened.
//
// Names resolve through the spec's table instead of DNS (ProxyOptions.resolve), and the fake
// internet's 127.0.0.x addresses count as public (ProxyOptions.fakeInternet): the test's hosts
// listen there. Everything else is the real check: 127.0.0.1 and other loopback addresses stay
// refused. A name listed with two answers gives them in turn (a rebinding resolver).
import { join } from "node:path";
import { parseArguments } from "../../src/core/tool.ts";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { bash } from "../../src/tools/commands/bash.ts";

interface RunnerSpec {
  cwd: string;
  home: string;
  hosts: Record<string, string[]>;
  fakeInternet: string[];
  commands: string[];
  env?: Record<string, string>;
}

const spec = JSON.parse(process.argv[2]) as RunnerSpec;
const asked = new Map<string, number>();
const resolve = async (host: string): Promise<string[]> => {
  const answers = spec.hosts[host];
  if (!answers) throw Object.assign(new Error(`${host} not found`), { code: "ENOTFOUND" });
  const turn = asked.get(host) ?? 0;
  asked.set(host, turn + 1);
  return [answers[turn % answers.length]];
};
const refusals: string[] = [];
const setup = setupPermissions(
  {},
  {
    cwd: spec.cwd,
    env: { HOME: spec.home, PATH: process.env.PATH, ...spec.env },
    harnessHome: join(spec.home, ".harness"),
    networkTesting: { resolve, fakeInternet: spec.fakeInternet },
    warn: (message) => refusals.push(message),
  },
);
const outputs: string[] = [];
for (const command of spec.commands) {
  const parsed = parseArguments(bash, JSON.stringify({ command, timeout: 60 }));
  if (!parsed.ok) throw new Error(`bad command ${command}`);
  const output = await bash.run(parsed.input as { command: string }, {
    cwd: spec.cwd,
    signal: new AbortController().signal,
    state: new Map(),
    env: setup.env,
    wrapCommand: setup.wrapCommand,
    ...(setup.network ? { network: setup.network } : {}),
  });
  outputs.push(typeof output === "string" ? output : output.content);
}
setup.network?.close();
process.stdout.write(
  `${JSON.stringify({ outputs, records: setup.network?.records ?? [], refusals, warnings: setup.warnings })}\n`,
);
process.exit(0);
