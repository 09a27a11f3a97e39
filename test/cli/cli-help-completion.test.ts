// `harness help <topic>` prints the manual's pages, and `harness completion <shell>` a script made
// from the flags' table and the subcommands, checked in a real bash.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAGS } from "../../src/cli/cli-args.ts";
import { SUBCOMMAND_NAMES } from "../../src/cli/subcommand-names.ts";
import { ROOT, runCli, tempDir } from "../support/helpers.ts";

const PAGES = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => name.slice(0, -3));

test("harness help lists every page of docs/, and prints one whole", async () => {
  const list = await runCli(["help"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^Topics: ${PAGES.sort().join(", ")}$`, "m"));
  for (const page of PAGES) {
    const shown = await runCli(["help", page]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout, readFileSync(join(ROOT, "docs", `${page}.md`), "utf8"));
  }
});

test("harness help with no such topic says so and names the topics (exit 2), never asking the model", async () => {
  const result = await runCli(["help", "frobnicate"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^harness: no help topic "frobnicate" \(topics: .*events.*\)\n$/);
  assert.equal(result.stdout, "");
});

/** What bash's completion offers after `words` (the last one being completed), with the script loaded. */
function bashCompletes(script: string, words: string[]): string[] {
  const dir = tempDir();
  writeFileSync(join(dir, "harness.bash"), script);
  const line = `source ${join(dir, "harness.bash")}; COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _harness; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync("bash", ["--norc", "-c", line], { encoding: "utf8" }).split("\n").filter(Boolean);
}

test("harness completion bash completes subcommands and every flag of the table in a real bash", async () => {
  const result = await runCli(["completion", "bash"]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(bashCompletes(result.stdout, ["harness", "se"]), ["serve", "sessions"]);
  assert.deepEqual(bashCompletes(result.stdout, ["harness", "co"]), ["completion"]);
  assert.deepEqual(bashCompletes(result.stdout, ["harness", "-p", "x", "--output"]).sort(), [
    "--output",
    "--output-format",
    "--output-schema",
  ]);
  const offered = bashCompletes(result.stdout, ["harness", "-"]);
  for (const name of Object.keys(FLAGS)) assert.ok(offered.includes(`--${name}`), `--${name} is offered`);
  assert.ok(offered.includes("-y") && offered.includes("-p"));
});

test("harness completion zsh and fish name every subcommand and flag; another shell is a usage error", async () => {
  for (const shell of ["zsh", "fish"]) {
    const result = await runCli(["completion", shell]);
    assert.equal(result.code, 0, result.stderr);
    for (const name of SUBCOMMAND_NAMES) assert.match(result.stdout, new RegExp(`\\b${name}\\b`));
    for (const name of Object.keys(FLAGS))
      assert.ok(result.stdout.includes(shell === "fish" ? `-l ${name}\n` : `--${name} `), `${shell}: --${name}`);
  }
  const other = await runCli(["completion", "tcsh"]);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /^harness: no completion for "tcsh"\nUsage: harness completion <bash\|zsh\|fish>/);
});
