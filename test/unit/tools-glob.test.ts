import assert from "node:assert/strict";
import { utimesSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { glob } from "../../src/tools/glob.ts";
import { globToRegExp } from "../../src/tools/glob-pattern.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

/** A project whose files have distinct modification times, oldest first in this list. */
function project() {
  const files = [
    "src/a.ts",
    "src/deep/b.ts",
    "src/c.js",
    "my dir/d.ts",
    "e.ts",
    "build/out.ts",
    "node_modules/m/i.ts",
    ".git/x.ts",
    "src/e.json",
  ];
  const cwd = makeFolder({ ".gitignore": "build/\n", ...Object.fromEntries(files.map((file) => [file, ""])) });
  for (const [index, file] of files.entries()) utimesSync(path.join(cwd, file), 1_000_000 + index, 1_000_000 + index);
  return cwd;
}

test("glob finds files newest first, skipping .git, node_modules and gitignored folders", async () => {
  const cwd = project();
  assert.deepEqual(await callTool(glob, { pattern: "**/*.ts" }, cwd), {
    content: "e.ts\nmy dir/d.ts\nsrc/deep/b.ts\nsrc/a.ts",
    summary: "4 files",
  });
  assert.deepEqual(await callTool(glob, { pattern: "*.ts" }, cwd), { content: "e.ts", summary: "1 file" });
  assert.deepEqual(await callTool(glob, { pattern: "src/*.{js,json}" }, cwd), {
    content: "src/e.json\nsrc/c.js",
    summary: "2 files",
  });
  assert.deepEqual(await callTool(glob, { pattern: "*.ts", path: "my dir" }, cwd), {
    content: "my dir/d.ts",
    summary: "1 file",
  });
  assert.deepEqual(await callTool(glob, { pattern: `${cwd}/src/**/b.ts` }, cwd), {
    content: "src/deep/b.ts",
    summary: "1 file",
  });
});

test("glob caps results and counts the rest", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 230; i++) files[`f${i}.txt`] = "";
  const cwd = makeFolder(files);
  const output = await callTool(glob, { pattern: "*.txt" }, cwd);
  const lines = output.content.split("\n");
  assert.equal(lines.length, 201);
  assert.equal(lines[200], "[showing 200 of 230 files; narrow the pattern]");
});

test("glob with no match, a missing folder or bad arguments", async () => {
  const cwd = project();
  assert.deepEqual(await callTool(glob, { pattern: "**/*.py" }, cwd), {
    content: "No files match **/*.py in .",
    summary: "0 files",
  });
  assert.deepEqual(await callTool(glob, { pattern: "*.ts", path: "scr" }, cwd), {
    isError: true,
    content: "Error: scr does not exist. Did you mean: src?",
  });
  assert.match(argumentError(glob, {}), /pattern/);
});

test("glob patterns become anchored regular expressions", () => {
  const cases: [string, string, boolean][] = [
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["*.ts", "src/a.ts", false],
    ["**", "a/b/c", true],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
    ["[ab].md", "b.md", true],
    ["[!ab].md", "b.md", false],
    ["*.{js,ts}", "x.ts", true],
    ["{src,test}/**/*.ts", "test/a/b.ts", true],
    ["file(1).txt", "file(1).txt", true],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
  ];
  for (const [pattern, file, expected] of cases)
    assert.equal(globToRegExp(pattern).test(file), expected, `${pattern} vs ${file}`);
});
