import assert from "node:assert/strict";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { editFile } from "../../src/tools/edit-file.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { writeFile } from "../../src/tools/write-file.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

/** A folder holding these files, each already read by the model in `state`. */
async function readFolder(files: Record<string, string>) {
  const cwd = makeFolder(files);
  const state = new Map<string, unknown>();
  for (const file of Object.keys(files)) await callTool(readFile, { path: file }, cwd, state);
  return { cwd, state };
}

test("edit_file replaces a unique string and shows a diff", async () => {
  const { cwd, state } = await readFolder({ "my src/app.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
  const output = await callTool(
    editFile,
    { path: "my src/app.ts", old_string: "const b = 2;", new_string: "const b = 20;\nconst d = 4;" },
    cwd,
    state,
  );
  const diff =
    "--- a/my src/app.ts\n+++ b/my src/app.ts\n@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n+const d = 4;\n const c = 3;\n";
  assert.deepEqual(output, {
    content: `Edited my src/app.ts (1 replacement):\n${diff}`,
    summary: "1 replacement",
    diff,
    changedFiles: [path.join(cwd, "my src/app.ts")],
  });
  assert.equal(
    readFileSync(path.join(cwd, "my src/app.ts"), "utf8"),
    "const a = 1;\nconst b = 20;\nconst d = 4;\nconst c = 3;\n",
  );
});

test("edit_file keeps CRLF line endings and a missing final newline", async () => {
  const { cwd, state } = await readFolder({ "win.txt": "one\r\ntwo\r\nthree" });
  const output = await callTool(
    editFile,
    { path: "win.txt", old_string: "one\ntwo", new_string: "ONE\nTWO\nTWO-B" },
    cwd,
    state,
  );
  assert.equal(output.isError, undefined);
  assert.equal(readFileSync(path.join(cwd, "win.txt"), "utf8"), "ONE\r\nTWO\r\nTWO-B\r\nthree");
});

test("edit_file refuses an ambiguous string unless replace_all", async () => {
  const { cwd, state } = await readFolder({ "a.py": "x = 1\nprint(x)\nx = 1\ny = $1\n" });
  assert.deepEqual(await callTool(editFile, { path: "a.py", old_string: "x = 1", new_string: "x = 2" }, cwd, state), {
    isError: true,
    content:
      "Error: old_string occurs 2 times in a.py (lines 1, 3). Include more surrounding lines to make it unique, or set replace_all to true.",
  });
  assert.equal(readFileSync(path.join(cwd, "a.py"), "utf8"), "x = 1\nprint(x)\nx = 1\ny = $1\n");
  const output = await callTool(
    editFile,
    { path: "a.py", old_string: "x = 1", new_string: "x = $&", replace_all: true },
    cwd,
    state,
  );
  assert.equal(output.summary, "2 replacements");
  assert.equal(readFileSync(path.join(cwd, "a.py"), "utf8"), "x = $&\nprint(x)\nx = $&\ny = $1\n");
});

test("edit_file with an absent string shows the most similar lines", async () => {
  const { cwd, state } = await readFolder({ "b.ts": "function add(a, b) {\n  return a + b;\n}\n" });
  assert.deepEqual(
    await callTool(editFile, { path: "b.ts", old_string: "  return a - b;", new_string: "  return b;" }, cwd, state),
    {
      isError: true,
      content:
        "Error: old_string was not found in b.ts. The most similar lines are:\n     2\t  return a + b;\nCopy the text exactly, including whitespace.",
    },
  );
  assert.deepEqual(
    await callTool(editFile, { path: "b.ts", old_string: "     2\t  return a + b;", new_string: "" }, cwd, state),
    {
      isError: true,
      content:
        'Error: old_string was not found in b.ts. It starts with a line number; leave out the "N<tab>" prefix that read_file adds.',
    },
  );
  assert.deepEqual(await callTool(editFile, { path: "b.ts", old_string: "zzzz qqqq", new_string: "" }, cwd, state), {
    isError: true,
    content: "Error: old_string was not found in b.ts. Read the file again and copy the text exactly.",
  });
});

test("edit_file requires a read first and refuses a file changed on disk since", async () => {
  const cwd = makeFolder({ "c.txt": "hello\n" });
  const state = new Map<string, unknown>();
  const edit = { path: "c.txt", old_string: "hello", new_string: "bye" };
  assert.deepEqual(await callTool(editFile, edit, cwd, state), {
    isError: true,
    content: "Error: read c.txt with read_file before editing it.",
  });
  await callTool(readFile, { path: "c.txt" }, cwd, state);
  writeFileSync(path.join(cwd, "c.txt"), "hello world\n");
  utimesSync(path.join(cwd, "c.txt"), new Date(), new Date(Date.now() + 5000));
  assert.deepEqual(await callTool(editFile, edit, cwd, state), {
    isError: true,
    content: "Error: c.txt changed on disk since you last read it; read it again with read_file, then edit.",
  });
  await callTool(readFile, { path: "c.txt" }, cwd, state);
  assert.equal((await callTool(editFile, edit, cwd, state)).summary, "1 replacement");
  assert.equal(
    (await callTool(editFile, { path: "c.txt", old_string: "bye world", new_string: "ciao" }, cwd, state)).summary,
    "1 replacement",
  );
  assert.equal(readFileSync(path.join(cwd, "c.txt"), "utf8"), "ciao\n");
});

test("edit_file may edit a file the model wrote itself", async () => {
  const cwd = makeFolder();
  const state = new Map<string, unknown>();
  await callTool(writeFile, { path: "d.txt", content: "draft\n" }, cwd, state);
  assert.equal(
    (await callTool(editFile, { path: "d.txt", old_string: "draft", new_string: "final" }, cwd, state)).summary,
    "1 replacement",
  );
  assert.equal(readFileSync(path.join(cwd, "d.txt"), "utf8"), "final\n");
});

test("edit_file rejects missing files, no-op edits and bad arguments", async () => {
  const { cwd, state } = await readFolder({ "e.txt": "x\n" });
  assert.deepEqual(await callTool(editFile, { path: "e.tx", old_string: "x", new_string: "y" }, cwd, state), {
    isError: true,
    content: "Error: e.tx does not exist. Did you mean: e.txt?",
  });
  assert.deepEqual(await callTool(editFile, { path: "e.txt", old_string: "x", new_string: "x" }, cwd, state), {
    isError: true,
    content: "Error: old_string and new_string are the same; nothing to change.",
  });
  assert.deepEqual(await callTool(editFile, { path: "e.txt", old_string: "", new_string: "x" }, cwd, state), {
    isError: true,
    content: "Error: old_string is empty; use write_file to create or overwrite a whole file.",
  });
  assert.match(argumentError(editFile, { path: "e.txt", old_string: "x" }), /new_string/);
  assert.match(
    argumentError(editFile, { path: "e.txt", old_string: "x", new_string: "y", replace_all: "yes" }),
    /replace_all/,
  );
});
