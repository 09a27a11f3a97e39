import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { readFile } from "../../src/tools/read-file.ts";
import { argumentError, callTool, makeFolder } from "../support/tools-helpers.ts";

test("read_file numbers lines and records the read", async () => {
  const cwd = makeFolder({ "my dir/a file.txt": "alpha\nbeta\r\ngamma" });
  const state = new Map<string, unknown>();
  const output = await callTool(readFile, { path: "my dir/a file.txt" }, cwd, state);
  assert.deepEqual(output, { content: "     1\talpha\n     2\tbeta\n     3\tgamma", summary: "3 lines" });
  assert.deepEqual([...state.keys()], [`read:${path.join(cwd, "my dir/a file.txt")}`]);
});

test("read_file with offset and limit says how to read further", async () => {
  const lines = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
  const cwd = makeFolder({ "ten.txt": lines });
  assert.deepEqual(await callTool(readFile, { path: "ten.txt", offset: 3, limit: 2 }, cwd), {
    content: "     3\tline 3\n     4\tline 4\n[showing lines 3-4; call again with offset=5 to read more]",
    summary: "2 lines",
  });
  assert.deepEqual(await callTool(readFile, { path: "ten.txt", offset: 9 }, cwd), {
    content: "     9\tline 9\n    10\tline 10\n[showing lines 9-10 of 10]",
    summary: "2 lines",
  });
  assert.deepEqual(await callTool(readFile, { path: "ten.txt", offset: 11 }, cwd), {
    isError: true,
    content: "Error: offset 11 is past the end of ten.txt, which has 10 lines.",
  });
});

test("read_file caps lines by default and cuts very long lines", async () => {
  const many = Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n");
  const cwd = makeFolder({ "many.txt": many, "long.txt": `${"x".repeat(5000)}\nshort\n` });
  const output = await callTool(readFile, { path: "many.txt" }, cwd);
  const shown = output.content.split("\n");
  assert.equal(shown.length, 2001);
  assert.equal(shown[1999], "  2000\t2000");
  assert.equal(shown[2000], "[showing lines 1-2000; call again with offset=2001 to read more]");
  const long = await callTool(readFile, { path: "long.txt" }, cwd);
  assert.equal(long.content, `     1\t${"x".repeat(2000)}... [line cut: 5000 chars]\n     2\tshort`);
});

test("read_file reads a window of a 50 MB file without loading it all", async () => {
  const cwd = makeFolder();
  const file = path.join(cwd, "big.log");
  const fd = openSync(file, "w");
  const block = `${Array.from({ length: 10_000 }, (_, i) => `row ${String(i).padStart(5, "0")} ${"-".repeat(88)}`).join("\n")}\n`;
  for (let i = 0; i < 50; i++) writeSync(fd, block);
  closeSync(fd);
  const output = await callTool(readFile, { path: "big.log", offset: 10_001, limit: 3 }, cwd);
  const row = (n: number) => `row ${String(n).padStart(5, "0")} ${"-".repeat(88)}`;
  assert.equal(
    output.content,
    ` 10001\t${row(0)}\n 10002\t${row(1)}\n 10003\t${row(2)}\n[showing lines 10001-10003; call again with offset=10004 to read more]`,
  );
});

test("read_file refuses binary files and folders", async () => {
  const cwd = makeFolder({ "image.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]) });
  mkdirSync(path.join(cwd, "src"));
  assert.deepEqual(await callTool(readFile, { path: "image.png" }, cwd), {
    isError: true,
    content: "Error: image.png is a binary file (7 bytes); read_file shows text files only.",
  });
  assert.deepEqual(await callTool(readFile, { path: "src" }, cwd), {
    isError: true,
    content: "Error: src is a folder, not a file; use list_files to see what it holds.",
  });
});

test("read_file on a missing file suggests similar names", async () => {
  const cwd = makeFolder({ "src/config.ts": "", "src/config.test.ts": "", "src/other.ts": "" });
  assert.deepEqual(await callTool(readFile, { path: "src/confg.ts" }, cwd), {
    isError: true,
    content: "Error: src/confg.ts does not exist. Did you mean: src/config.ts, src/config.test.ts?",
  });
  assert.deepEqual(await callTool(readFile, { path: "sorc/config.ts" }, cwd), {
    isError: true,
    content: "Error: sorc/config.ts does not exist. Did you mean: src?",
  });
  assert.deepEqual(await callTool(readFile, { path: "zzz.md" }, cwd), {
    isError: true,
    content: "Error: zzz.md does not exist.",
  });
});

test("read_file on an empty file says so", async () => {
  const cwd = makeFolder({ "empty.txt": "" });
  assert.deepEqual(await callTool(readFile, { path: "empty.txt" }, cwd), {
    content: "[empty.txt is empty]",
    summary: "empty file",
  });
});

test("read_file arguments are validated by field", () => {
  assert.match(argumentError(readFile, {}), /path/);
  assert.match(argumentError(readFile, { path: "a", limit: "ten" }), /limit/);
  assert.match(argumentError(readFile, { path: "a", offset: 0 }), /offset/);
});
