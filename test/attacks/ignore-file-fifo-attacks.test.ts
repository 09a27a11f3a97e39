// Red team, issue 51: a command of an earlier run made `.gitignore` a FIFO (`mkfifo .gitignore`,
// made here by the test) and the model then globs and lists the project. Before, the walk's .gitignore read waited for a writer that never
// came and the run (a headless run, a batch task) hung for good, though the file tools refused
// FIFOs by name. Now an ignore file is read only when it is a regular file, opened non-blocking
// (src/tools/gitignore.ts), and the walk goes on. As root and as nobody, the HOME under /var/tmp.
// This run changes no file, so takes no snapshot: the snapshots' git (`ls-files --exclude-standard`)
// still waits on such a FIFO up to its 120 s bound (src/snapshots/shadow-git.ts), a delay, not a hang.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a FIFO named .gitignore does not hang glob or list_files`, {
    skip: skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-ignore-fifo-home-");
    const project = join(home, "project");
    mkdirSync(join(project, "sub"), { recursive: true });
    writeFileSync(join(project, "notes.txt"), "needle\n");
    execFileSync("mkfifo", [join(project, ".gitignore"), join(project, "sub", ".gitignore")]);
    handTo(identity, home);
    const calls = [
      { id: "glob", name: "glob", arguments: { pattern: "**/*.txt" } },
      { id: "list", name: "list_files", arguments: { path: "." } },
      { id: "list_sub", name: "list_files", arguments: { path: "sub" } },
    ];
    const fake = await serve([{ reply: { toolCalls: calls } }, { reply: { text: "done" } }]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "look around"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, `the run did not end well:\n${result.stderr}`);
    assert.equal(fake.requests.length, 2, "every call came back to the model");
    assert.match(toolResultOf(fake, 1, "glob"), /notes\.txt/);
    assert.match(toolResultOf(fake, 1, "list"), /notes\.txt/);
    assert.doesNotMatch(toolResultOf(fake, 1, "list_sub"), /^Error/);
  });
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: a FIFO named .gitignore bounds grep through ripgrep instead of hanging it`, {
    skip: needs("rg") || skipAs(identity),
  }, async () => {
    // rg reads each ignore file on its walk and waits for good on a FIFO: the search is bounded
    // (HARNESS_GREP_TIMEOUT, 120 s by default; 2 s here) and says why it stopped.
    const home = canaryHomeDir("harness-ignore-fifo-rg-home-");
    const project = join(home, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "notes.txt"), "needle\n");
    execFileSync("mkfifo", [join(project, ".gitignore")]);
    handTo(identity, home);
    const fake = await serve([
      { reply: { toolCalls: [{ id: "grep", name: "grep", arguments: { pattern: "needle" } }] } },
      { reply: { text: "done" } },
    ]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness"), HARNESS_GREP_TIMEOUT: "2" });
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "look for the needle"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, `the run did not end well:\n${result.stderr}`);
    assert.match(toolResultOf(fake, 1, "grep"), /ripgrep stopped after 2 s/);
  });
}
