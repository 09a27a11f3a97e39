// A Claude Code user's command line: flags harness has under another name are taken; the others
// are refused with what harness has instead (exit 2), never dropped. Flags from
// https://docs.claude.com/en/docs/claude-code/cli-reference.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseRunFlags, UsageError } from "../../src/cli/cli-args.ts";
import { tempDir } from "../support/helpers.ts";

test("Claude Code's flags with a harness equivalent are taken under harness's names", () => {
  const streaming = parseRunFlags(["-p", "hi", "--output-format", "stream-json", "--verbose"]);
  assert.equal(streaming.output, "stream-json");
  assert.equal(streaming.print, "hi");
  assert.equal(parseRunFlags(["--dangerously-skip-permissions", "-p", "x"]).approve, "all");
  assert.equal(parseRunFlags(["--permission-mode", "acceptEdits", "-p", "x"]).approve, "edits");
  assert.equal(parseRunFlags(["--permission-mode=default", "-p", "x"]).approve, "ask");
  assert.equal(parseRunFlags(["--permission-mode", "bypassPermissions", "-p", "x"]).approve, "all");
  assert.equal(parseRunFlags(["--permission-mode", "plan", "-p", "x"]).approve, "plan");
  assert.equal(parseRunFlags(["-c", "--fork-session", "-p", "x"]).fork, true);
  const file = join(tempDir(), "system.md");
  writeFileSync(file, "be brief");
  assert.equal(parseRunFlags(["--system-prompt-file", file, "-p", "x"])["system-prompt"], "be brief");
  // After `--` every word is the prompt's.
  assert.deepEqual(parseRunFlags(["--", "--verbose", "please"]).positionals, ["--verbose", "please"]);
});

test("Claude Code's flags harness has no behaviour for are refused, naming what it has instead", () => {
  for (const [argv, instead] of [
    [["--allowedTools", "Read", "-p", "x"], /permissions\.allow/],
    [["--disallowedTools=Bash", "-p", "x"], /permissions\.deny/],
    [["--add-dir", "../lib", "-p", "x"], /--cwd/],
    [["--mcp-config", "m.json", "-p", "x"], /\.mcp\.json/],
    [["--max-budget-usd", "1", "-p", "x"], /--max-cost/],
    [["--permission-mode", "dontAsk", "-p", "x"], /default, acceptEdits, bypassPermissions/],
    [["--verbose=yes", "-p", "x"], /takes no value/],
    [["-p", "x", "--allowedTools"], /needs a value/],
  ] as const) {
    assert.throws(
      () => parseRunFlags([...argv]),
      (error: unknown) => error instanceof UsageError && instead.test(error.message),
      argv.join(" "),
    );
  }
});
