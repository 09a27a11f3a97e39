// Undo takes back what the turns changed, and only that: the user's own work after the turn (a
// new file, an edit to a file the turn never touched, an edit on top of the turn's) stays, and a
// file left alone for that reason is named. Through the built CLI against the fake model.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { readIfThere as read } from "../support/undo-helpers.ts";

const serve = fakeServerPerTest();

/** A -y run that changes math.js with sed and creates NOTES.md, in a folder holding math.js and test.js. */
async function runChangingTurn() {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "sed", name: "bash", arguments: { command: "sed -i s/a+b/a-b/ math.js && echo notes > NOTES.md" } },
        ],
      },
    },
    { reply: { text: "changed math.js and wrote notes" } },
  ]);
  const env = cleanEnv();
  const cwd = tempDir("harness-undo-others-");
  writeFileSync(join(cwd, "math.js"), "export const add = (a, b) => a+b;\n");
  writeFileSync(join(cwd, "test.js"), "test('add')\n");
  const run = await runCli([...fakeFlags(fake), "-y", "-p", "change math"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(read(cwd, "math.js"), "export const add = (a, b) => a-b;\n");
  assert.equal(read(cwd, "NOTES.md"), "notes\n");
  return { env, cwd };
}

test("harness undo puts back the turn's files and leaves the user's later work alone: a new file, an edit elsewhere", async () => {
  const { env, cwd } = await runChangingTurn();
  writeFileSync(join(cwd, "my-notes.txt"), "mine\n");
  writeFileSync(join(cwd, "test.js"), "test('add')\ntest('mine')\n");

  const undo = await runCli(["undo"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read(cwd, "math.js"), "export const add = (a, b) => a+b;\n");
  assert.equal(read(cwd, "NOTES.md"), undefined);
  assert.equal(read(cwd, "my-notes.txt"), "mine\n", "the user's new file stays");
  assert.equal(read(cwd, "test.js"), "test('add')\ntest('mine')\n", "the user's edit stays");
  const id = /session (\S+):/.exec(undo.stdout)?.[1];
  assert.equal(
    undo.stdout,
    `undid the last turn of session ${id}: files in ${cwd}:\n  deleted   NOTES.md\n  changed   math.js\nto redo it: harness -r ${id}, then /redo\n`,
  );
});

test("a file the turn changed and the user changed again after it is left as it is, and named; the rest goes back", async () => {
  const { env, cwd } = await runChangingTurn();
  writeFileSync(join(cwd, "math.js"), "export const add = (a, b) => a - b; // mine\n");

  const undo = await runCli(["undo"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read(cwd, "math.js"), "export const add = (a, b) => a - b; // mine\n", "the user's edit stays");
  assert.equal(read(cwd, "NOTES.md"), undefined);
  assert.match(
    undo.stdout,
    /\n {2}deleted {3}NOTES\.md\nleft as they are \(changed again after the turn, by you or another program\):\n {2}math\.js\nto redo it: /,
  );
});
