import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { writeFile } from "../../src/tools/write-file.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

test("write_file creates parent folders and returns an all-added diff", async () => {
  const cwd = makeFolder();
  const state = new Map<string, unknown>();
  const output = await callTool(writeFile, { path: "new dir/sub/notes.md", content: "one\ntwo\n" }, cwd, state);
  assert.deepEqual(output, {
    content: "Created new dir/sub/notes.md (8 bytes, 2 lines).",
    summary: "created 2 lines",
    diff: "--- /dev/null\n+++ b/new dir/sub/notes.md\n@@ -0,0 +1,2 @@\n+one\n+two\n",
    changedFiles: [path.join(cwd, "new dir/sub/notes.md")],
  });
  const absolute = path.join(cwd, "new dir/sub/notes.md");
  assert.equal(readFileSync(absolute, "utf8"), "one\ntwo\n");
  const stats = statSync(absolute);
  assert.deepEqual(state.get(`read:${absolute}`), { mtimeMs: stats.mtimeMs, size: stats.size });
});

test("write_file overwrites with a diff against the old content", async () => {
  const cwd = makeFolder({ "a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n" });
  const output = await callTool(writeFile, { path: "a.txt", content: "1\n2\n3\n4\nfive\n6\n7\n8\n9" }, cwd);
  assert.deepEqual(output, {
    content: "Overwrote a.txt (20 bytes, 9 lines).",
    summary: "overwrote 9 lines",
    diff: "--- a/a.txt\n+++ b/a.txt\n@@ -2,8 +2,8 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n-9\n+9\n\\ No newline at end of file\n",
    changedFiles: [path.join(cwd, "a.txt")],
  });
});

test("write_file refuses a folder and validates its arguments", async () => {
  const cwd = makeFolder();
  mkdirSync(path.join(cwd, "src"));
  assert.deepEqual(await callTool(writeFile, { path: "src", content: "x" }, cwd), {
    isError: true,
    content: "Error: src is a folder; give a file path.",
  });
  assert.match(argumentError(writeFile, { path: "a.txt" }), /content/);
  assert.match(argumentError(writeFile, { content: "x" }), /path/);
});

test("write_file lock key is the resolved path", () => {
  assert.equal(writeFile.lockKey?.({ path: "a/../b.txt", content: "" }, "/work"), "/work/b.txt");
});
