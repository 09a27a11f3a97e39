import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolOutput } from "../../src/core/tool.ts";
import { findExecutable } from "../../src/shared/system-program.ts";
import { grep } from "../../src/tools/grep.ts";
import { needs } from "../support/system-programs.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

const realPath = process.env.PATH ?? "";
/** Without rg only the built-in search is checked; the test at the end says so as a skip. */
const ripgrepMissing = needs("rg");
const hasRipgrep = ripgrepMissing === false;
const emptyBin = makeFolder();

/** Runs grep with PATH stripped of rg (the built-in search), then with the real PATH when rg is on it, and checks both agree. */
async function grepBoth(args: Record<string, unknown>, cwd: string): Promise<ToolOutput> {
  process.env.PATH = emptyBin;
  let builtIn: ToolOutput;
  try {
    builtIn = await callTool(grep, args, cwd);
  } finally {
    process.env.PATH = realPath;
  }
  if (hasRipgrep)
    assert.deepEqual(await callTool(grep, args, cwd), builtIn, "ripgrep and the built-in search disagree");
  return builtIn;
}

const project = () =>
  makeFolder({
    ".gitignore": "*.log\n",
    "a.ts": "// TODO top\n",
    "a/x.ts": "const x = 1; // todo lower\n",
    "src/main.ts": "line 1\nline 2\nTODO: first\nline 4\nline 5\nline 6\nline 7\nTODO: second\nTODO: third\nline 10\n",
    "my dir/notes.txt": "nothing here\nTODO with spaces\r\n",
    ".github/ci.yml": "# TODO ci\n",
    "debug.log": "TODO ignored by .gitignore\n",
    "node_modules/pkg/index.js": "// TODO in a dependency\n",
    ".git/config": "TODO inside .git\n",
    "blob.bin": Buffer.concat([Buffer.from("TODO binary\n"), Buffer.from([0, 1, 2])]),
  });

test("grep finds matches sorted by path, skipping ignored, dependency, .git and binary files", async () => {
  const cwd = project();
  assert.deepEqual(await grepBoth({ pattern: "TODO" }, cwd), {
    content: [
      ".github/ci.yml:1:# TODO ci",
      "a.ts:1:// TODO top",
      "my dir/notes.txt:2:TODO with spaces",
      "src/main.ts:3:TODO: first",
      "src/main.ts:8:TODO: second",
      "src/main.ts:9:TODO: third",
    ].join("\n"),
    summary: "6 matches",
  });
});

test("grep with context, ignore_case, a path with spaces and a glob filter", async () => {
  const cwd = project();
  assert.deepEqual(await grepBoth({ pattern: "todo", path: "src", context: 1, ignore_case: true }, cwd), {
    content: [
      "src/main.ts-2-line 2",
      "src/main.ts:3:TODO: first",
      "src/main.ts-4-line 4",
      "--",
      "src/main.ts-7-line 7",
      "src/main.ts:8:TODO: second",
      "src/main.ts:9:TODO: third",
      "src/main.ts-10-line 10",
    ].join("\n"),
    summary: "3 matches",
  });
  assert.deepEqual(await grepBoth({ pattern: "spaces$", path: "my dir" }, cwd), {
    content: "No matches for spaces$ in my dir",
    summary: "0 matches",
  });
  assert.deepEqual(await grepBoth({ pattern: "TODO", path: "my dir/notes.txt", context: 1 }, cwd), {
    content: "my dir/notes.txt-1-nothing here\nmy dir/notes.txt:2:TODO with spaces",
    summary: "1 match",
  });
  assert.deepEqual(await grepBoth({ pattern: "todo", glob: "*.ts", ignore_case: true, context: 1 }, cwd), {
    content: [
      "a/x.ts:1:const x = 1; // todo lower",
      "--",
      "a.ts:1:// TODO top",
      "--",
      "src/main.ts-2-line 2",
      "src/main.ts:3:TODO: first",
      "src/main.ts-4-line 4",
      "--",
      "src/main.ts-7-line 7",
      "src/main.ts:8:TODO: second",
      "src/main.ts:9:TODO: third",
      "src/main.ts-10-line 10",
    ].join("\n"),
    summary: "5 matches",
  });
});

test("grep caps matches and counts the rest", async () => {
  const lines = Array.from({ length: 250 }, (_, i) => `hit ${i + 1}`).join("\n");
  const cwd = makeFolder({ "many.txt": lines });
  const output = await grepBoth({ pattern: "^hit" }, cwd);
  const shown = output.content.split("\n");
  assert.equal(shown.length, 201);
  assert.equal(shown[199], "many.txt:200:hit 200");
  assert.equal(shown[200], "[showing 200 of 250 matching lines; narrow the pattern, path or glob]");
  assert.equal(output.summary, "250 matches");
});

test("grep reports a bad regex, a missing path and bad arguments", async () => {
  const cwd = project();
  process.env.PATH = emptyBin;
  try {
    assert.deepEqual(await callTool(grep, { pattern: "(" }, cwd), {
      isError: true,
      content: "Error: invalid regex: Invalid regular expression: /(/: Unterminated group",
    });
  } finally {
    process.env.PATH = realPath;
  }
  if (hasRipgrep) {
    const output = await callTool(grep, { pattern: "(" }, cwd);
    assert.equal(output.isError, true);
    assert.match(output.content, /^Error: ripgrep failed: regex parse error/);
  }
  assert.deepEqual(await grepBoth({ pattern: "x", path: "srcc" }, cwd), {
    isError: true,
    content: "Error: srcc does not exist. Did you mean: src?",
  });
  assert.match(argumentError(grep, { path: "src" }), /pattern/);
  assert.match(argumentError(grep, { pattern: "x", context: "2" }), /context/);
});

test("ripgrep is used when it is on PATH, and agrees with the built-in search", { skip: ripgrepMissing }, async () => {
  assert.ok(findExecutable("rg", realPath));
  const cwd = project();
  assert.deepEqual(
    await callTool(grep, { pattern: "TODO", ignore_case: true }, cwd),
    await grepBoth({ pattern: "TODO", ignore_case: true }, cwd),
  );
  const output = await callTool(grep, { pattern: "(" }, cwd);
  assert.match(output.content, /^Error: ripgrep failed/, "a message only ripgrep gives: it ran");
});
