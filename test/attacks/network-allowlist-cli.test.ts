// The network allowlist through the built CLI, headless (`-y -p`), as root and as nobody: a
// refused connection is named on stderr and in the command's output, a loopback grant reaches
// the host's service through the sandbox's relay while another port does not, web_fetch follows
// the same list, and a project's "on" does not widen the user's list (docs/network.md).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runYesAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

async function hostService(answer: string): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((_request, response) => response.end(answer));
  server.on("connection", () => hits++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestEnd(() => void server.close());
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: headless, refusals are named on stderr; a grant reaches only its port; web_fetch follows the list`, {
    skip: needs("bwrap", "setpriv", "curl") || skipAs(identity),
  }, async () => {
    const granted = await hostService("granted-db\n");
    const secret = await hostService("HOST SECRET\n");
    const home = canaryHomeDir("harness-network-cli-");
    const project = join(home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(join(project, ".harness"));
    mkdirSync(join(home, ".harness"));
    writeFileSync(
      join(home, ".harness", "settings.json"),
      JSON.stringify({ sandbox: { network: ["allowed.example", `localhost:${granted.port}`] } }),
    );
    writeFileSync(join(project, ".harness", "settings.json"), JSON.stringify({ sandbox: { network: "on" } }));
    handTo(identity, home);
    const curl = "curl -sS --max-time 20";
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "denied", name: "bash", arguments: { command: `${curl} http://denied.example:81/` } },
            { id: "granted", name: "bash", arguments: { command: `${curl} http://localhost:${granted.port}/` } },
            { id: "secret", name: "bash", arguments: { command: `${curl} http://localhost:${secret.port}/` } },
            { id: "fetch", name: "web_fetch", arguments: { url: "http://denied.example:81/" } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const run = await runYesAs(identity, { home, cwd: project, fake });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      toolResultOf(fake, 1, "denied"),
      /harness refused this connection: denied\.example:81 is not on the sandbox\.network list/,
    );
    assert.match(toolResultOf(fake, 1, "granted"), /granted-db/);
    assert.match(toolResultOf(fake, 1, "secret"), /localhost:\d+ is not on the sandbox\.network list/);
    assert.match(toolResultOf(fake, 1, "fetch"), /Not fetched: denied\.example:81 is not on the sandbox\.network list/);
    // Each refusal names the command that tried (the relay tells the proxy which: docs/network.md).
    assert.match(run.stderr, /network: refused denied\.example:81 for curl [^\n]*http:\/\/denied\.example:81\/ \(/);
    assert.match(run.stderr, /network: refused denied\.example:81 for web_fetch http:\/\/denied\.example:81\/ \(/);
    assert.match(run.stderr, new RegExp(`network: refused localhost:${secret.port} for curl [^\\n]* \\(`));
    assert.match(run.stderr, /sandbox\.network "on" is ignored/);
    assert.equal(secret.hits(), 0, "the host's other service was never reached");
  });
}
