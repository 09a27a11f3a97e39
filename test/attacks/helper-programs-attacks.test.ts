// A repository that ships its own `bwrap`, `git` and `rg` in node_modules/.bin, for a user whose
// PATH starts with a relative entry (`node_modules/.bin`, common in npm setups). Harness must run
// its own helpers from fixed places: a fake bwrap would run outside the sandbox, handed the very
// command it should confine. The built CLI against the fake model, as root and as nobody; the
// canary HOME is under /var/tmp, where the fakes would leave their marks.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const FAKES = ["bwrap", "git", "rg"];

for (const identity of IDENTITIES) {
  test(`as ${identity}: with node_modules/.bin first in PATH, the repository's own bwrap, git and rg never run`, {
    skip: needs("bwrap", "setpriv", "rg") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-helpers-");
    const repo = join(home, "repo");
    const bin = join(repo, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    for (const name of FAKES) {
      writeFileSync(join(bin, name), `#!/bin/sh\nenv > ${join(home, `PWNED-${name}`)}\nexit 1\n`);
      chmodSync(join(bin, name), 0o755);
    }
    writeFileSync(join(repo, "notes.txt"), "a TODO here\n");
    mkdirSync(join(home, ".harness"));
    handTo(identity, home);
    const env = cleanEnv({
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      PATH: `node_modules/.bin:${process.env.PATH}`,
      OPENAI_API_KEY: "sk-canary-key-never-handed-out",
    });
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "grep", name: "grep", arguments: { pattern: "TODO" } },
            { id: "bash", name: "bash", arguments: { command: "echo SANDBOXED" } },
            { id: "write", name: "write_file", arguments: { path: "out.txt", content: "x\n" } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const run = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "go"], {
      cwd: repo,
      env,
      wrap: runAs(identity),
    });
    assert.deepEqual(
      readdirSync(home).filter((name) => name.startsWith("PWNED")),
      [],
    );
    assert.equal(run.code, 0, run.stderr);
    const results = fake.requests[1].body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.match(results[0].content, /notes\.txt:1:a TODO here/);
    assert.match(results[1].content, /^SANDBOXED\n/);
    assert.equal(existsSync(join(repo, "out.txt")), true);
  });
}
