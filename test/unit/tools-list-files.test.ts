import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { listFiles } from "../../src/tools/list-files.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

test("list_files shows a tree, folders first, skipping .git, node_modules and gitignored files", async () => {
  const cwd = makeFolder({
    ".gitignore": "*.log\n/build/\ndocs/**/*.tmp\n!keep.log\n",
    ".git/HEAD": "ref: main\n",
    "node_modules/x/index.js": "",
    "build/out.js": "",
    "src/build/kept.ts": "",
    "src/a.ts": "",
    "src/debug.log": "",
    "src/keep.log": "",
    "src/deep/er/est/file.ts": "",
    "docs/x/y.tmp": "",
    "docs/x/y.md": "",
    "my notes.txt": "",
    "sub/.gitignore": "secret.txt\n",
    "sub/secret.txt": "",
    "sub/public.txt": "",
  });
  const output = await callTool(listFiles, {}, cwd);
  assert.deepEqual(output, {
    content: [
      "./",
      "  docs/",
      "    x/",
      "      y.md",
      "  src/",
      "    build/",
      "      kept.ts",
      "    deep/",
      "      er/",
      "    a.ts",
      "    keep.log",
      "  sub/",
      "    .gitignore",
      "    public.txt",
      "  .gitignore",
      "  my notes.txt",
    ].join("\n"),
    summary: "15 entries",
  });
  const deeper = await callTool(listFiles, { path: "src", depth: 5 }, cwd);
  assert.equal(
    deeper.content,
    [
      "src/",
      "  build/",
      "    kept.ts",
      "  deep/",
      "    er/",
      "      est/",
      "        file.ts",
      "  a.ts",
      "  keep.log",
    ].join("\n"),
  );
});

test("list_files does not follow a symlink loop", async () => {
  const cwd = makeFolder({ "a/file.txt": "" });
  symlinkSync("..", path.join(cwd, "a", "loop"));
  assert.deepEqual(await callTool(listFiles, { path: "a", depth: 20 }, cwd), {
    content: "a/\n  file.txt\n  loop -> ..",
    summary: "2 entries",
  });
});

test("list_files caps entries and counts the rest", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 520; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "";
  const cwd = makeFolder(files);
  const output = await callTool(listFiles, { path: "." }, cwd);
  const lines = output.content.split("\n");
  assert.equal(lines.length, 502);
  assert.equal(lines[500], "  f499.txt");
  assert.equal(lines[501], "[showing 500 entries; 20 more left out; list a subfolder or use a smaller depth]");
});

test("list_files errors: missing folder, a file, empty folder, bad depth", async () => {
  const cwd = makeFolder({ "src/a.ts": "" });
  mkdirSync(path.join(cwd, "empty"));
  assert.deepEqual(await callTool(listFiles, { path: "scr" }, cwd), {
    isError: true,
    content: "Error: scr does not exist. Did you mean: src?",
  });
  assert.deepEqual(await callTool(listFiles, { path: "src/a.ts" }, cwd), {
    isError: true,
    content: "Error: src/a.ts is a file, not a folder; use read_file to read it.",
  });
  assert.deepEqual(await callTool(listFiles, { path: "empty" }, cwd), {
    content: "empty/ is empty.",
    summary: "0 entries",
  });
  assert.match(argumentError(listFiles, { depth: "deep" }), /depth/);
});
