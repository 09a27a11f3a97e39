// A command makes a second name for a file the deny rules keep the file tools out of
// (`ln deep/key.pem notes.txt`), then the file tools read, grep, edit and overwrite it by the new
// name, under --yes. The built CLI against the fake model, with the sandbox, as root and as
// nobody; the canary is in a HOME under /var/tmp. A hard-linked file no rule covers still works.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runYesAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const CANARY = "CANARY-hard-linked-key-never-read";

for (const identity of IDENTITIES) {
  test(`as ${identity}: a hard link a command makes to a denied file is refused to read_file, grep, edit_file and write_file`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hard-links-");
    const project = join(home, "project");
    mkdirSync(join(project, ".claude"), { recursive: true });
    mkdirSync(join(project, "deep"));
    mkdirSync(join(home, ".harness"));
    writeFileSync(join(project, "deep", "key.pem"), `${CANARY}\n`);
    writeFileSync(join(project, "plain.txt"), "plain words\n");
    writeFileSync(
      join(project, ".claude", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Read(*.pem)", "Edit(*.pem)"] } }),
    );
    handTo(identity, home);
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            {
              id: "ln",
              name: "bash",
              arguments: { command: "ln deep/key.pem notes.txt && ln plain.txt other.txt && echo LINKED" },
            },
          ],
        },
      },
      {
        reply: {
          toolCalls: [
            { id: "read", name: "read_file", arguments: { path: "notes.txt" } },
            { id: "grep", name: "grep", arguments: { pattern: "CANARY" } },
            { id: "edit", name: "edit_file", arguments: { path: "notes.txt", old_string: "CANARY", new_string: "X" } },
            { id: "write", name: "write_file", arguments: { path: "notes.txt", content: "overwritten\n" } },
            { id: "plain", name: "read_file", arguments: { path: "other.txt" } },
          ],
        },
      },
      { reply: { text: "done" } },
    ]);
    const run = await runYesAs(identity, { home, cwd: project, fake });
    assert.equal(run.code, 0, run.stderr);
    assert.match(toolResultOf(fake, 1, "ln"), /LINKED/);
    for (const id of ["read", "grep", "edit", "write"])
      assert.doesNotMatch(toolResultOf(fake, 2, id), new RegExp(CANARY), id);
    for (const id of ["read", "edit", "write"])
      assert.match(
        toolResultOf(fake, 2, id),
        /notes\.txt is another name \(a hard link\) for .*deep\/key\.pem, which the rule (Read|Edit)\(\*\.pem\)/,
        id,
      );
    assert.equal(readFileSync(join(project, "deep", "key.pem"), "utf8"), `${CANARY}\n`);
    assert.match(toolResultOf(fake, 2, "plain"), /plain words/, "a hard link no rule covers is read");
  });
}
