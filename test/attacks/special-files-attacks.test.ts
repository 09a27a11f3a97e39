// A command makes a FIFO (`mkfifo pipe`) and the model then reads, writes, edits and greps it:
// before, the first of these waited for a writer that never came and the run (a headless run, a
// batch task) hung for good. Now every file tool refuses a FIFO, a socket or a device without
// opening it, with an error naming what it is, and the run goes on. The same for a picture
// attached with --image that is a FIFO. As root and as nobody, the HOME under /var/tmp.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: file tools refuse a FIFO and a socket a command made; the run ends`, {
    skip: skipAs(identity),
  }, async (t) => {
    const home = canaryHomeDir("harness-fifo-home-");
    const project = join(home, "project");
    mkdirSync(project);
    writeFileSync(join(project, "notes.txt"), "needle\n");
    handTo(identity, home);
    // A socket the model's command could have left (a dev server's); served by the test.
    const socket = createServer().listen(join(project, "dev.sock"));
    t.after(() => socket.close());
    await new Promise((resolve) => socket.once("listening", resolve));
    const make = { id: "make", name: "bash", arguments: { command: "mkfifo pipe" } };
    const calls = [
      { id: "read", name: "read_file", arguments: { path: "pipe" } },
      { id: "write", name: "write_file", arguments: { path: "pipe", content: "x\n" } },
      { id: "edit", name: "edit_file", arguments: { path: "pipe", old_string: "a", new_string: "b" } },
      { id: "grep", name: "grep", arguments: { pattern: "needle", path: "pipe" } },
      { id: "grep_all", name: "grep", arguments: { pattern: "needle" } },
      { id: "socket", name: "read_file", arguments: { path: "dev.sock" } },
    ];
    const fake = await serve([
      { reply: { toolCalls: [make] } },
      { reply: { toolCalls: calls } },
      { reply: { text: "done" } },
    ]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
    const result = await runCli(["-y", "--sandbox", "off", ...fakeFlags(fake), "-p", "use the pipe"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, `the run did not end well:\n${result.stderr}`);
    assert.equal(fake.requests.length, 3, "every call came back to the model");
    for (const id of ["read", "write", "edit", "grep"])
      assert.match(toolResultOf(fake, 2, id), /pipe is a FIFO \(named pipe\), not a regular file/, id);
    assert.match(toolResultOf(fake, 2, "grep_all"), /notes\.txt:1:needle/, "a folder's search passes the FIFO by");
    assert.match(toolResultOf(fake, 2, "socket"), /dev\.sock is a socket, not a regular file/);
  });

  test(`as ${identity}: a picture that is a FIFO is refused, not waited on`, { skip: skipAs(identity) }, async () => {
    const home = canaryHomeDir("harness-fifo-home-");
    const project = join(home, "project");
    mkdirSync(project);
    execFileSync("mkfifo", [join(project, "shot.png")]);
    handTo(identity, home);
    const fake = await serve([{ reply: { text: "seen" } }]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
    const result = await runCli([...fakeFlags(fake), "--image", "shot.png", "-p", "look"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /shot\.png is a FIFO \(named pipe\), not a picture file/);
    assert.equal(fake.requests.length, 0);
  });
}
