// A running command shows its last output lines under its clock, updated in place, and folded
// when it ends (issue 33), in a real terminal (tmux). Each phase of the command waits for a file
// the test writes once the screen showed the phase before, so no step depends on timing.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { visibleWidth } from "../../src/ui/text-width.ts";
import { fakeFlags, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const COLUMNS = 60;

/** Waits for `file` in the command's folder (the test writes it). */
const waitFor = (file: string) => `while [ ! -f ${file} ]; do sleep 0.05; done`;

const COMMAND = [
  "for i in $(seq 1 12); do echo first-$i; done",
  // A title change and a screen clear in the output must do nothing; a wide line must be cut to the width.
  String.raw`printf '\033]0;pwned\007\033[2Jwide-界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界\n'`,
  waitFor("go1"),
  "for i in $(seq 1 3); do echo second-$i; done",
  waitFor("go2"),
  "echo last",
].join("; ");

test("a running command's last lines show under its clock, are redrawn in place, cut to the width, and fold when it ends", {
  skip: needs("tmux"),
}, async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command: COMMAND } }] } },
    { reply: { text: "all done" } },
  ]);
  const cwd = tempDir();
  const term = TmuxTerminal.start({
    args: ["-y", "--sandbox", "off", ...fakeFlags(fake)],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: tempDir("harness-home-") },
    columns: COLUMNS,
    rows: 20,
  });
  await term.waitFor(/^>\s*$/m, "the first prompt");
  term.type("run it");
  term.send(["Enter"]);

  // The clock's line, then the last five lines of what the command printed so far.
  const first = await term.waitFor(
    /^bash> .* \d+s\n {2}first-9\n {2}first-10\n {2}first-11\n {2}first-12\n {2}wide-界+…\n/m,
    "the command's last five lines under its clock",
  );
  const live = liveBlock(first);
  assert.doesNotMatch(live.join("\n"), /first-8/, `only the last five lines are drawn:\n${first}`);
  assert.doesNotMatch(
    live.join("\n"),
    /pwned|\]0;|\[2J/,
    `the escape sequences did nothing and are not shown:\n${first}`,
  );
  for (const line of live) assert.ok(visibleWidth(line) <= COLUMNS, `a line wider than the terminal: ${line}`);
  assert.match(first, /^harness · /m, `the screen was not cleared:\n${first}`);

  writeFileSync(join(cwd, "go1"), "");
  const second = await term.waitFor(/^ {2}second-3\n/m, "the lines redrawn with the new output");
  assert.match(
    second,
    /^bash> .* \d+s\n {2}first-12\n {2}wide-界+…\n {2}second-1\n {2}second-2\n {2}second-3\n/m,
    second,
  );
  assert.doesNotMatch(second, /first-9|first-11/, `the old lines were replaced in place, none left over:\n${second}`);

  writeFileSync(join(cwd, "go2"), "");
  const done = await term.waitFor(/all done[\s\S]*^> $/m, "the answer after the command");
  // Folded: the live lines are gone, and the call's trace is the folded result, as before.
  assert.doesNotMatch(done, /\d+s\n {2}first|… \d+s/, `the clock and its lines are gone:\n${done}`);
  assert.match(
    done,
    /^ {2}first-1\n {2}first-2\n {2}first-3\n {2}… 14 lines hidden .*\n {2}\[exit code: 0\]\n/m,
    `the result's trace is the folded output, as without the live lines:\n${done}`,
  );
  assert.equal(done.split("\n").filter((line) => line === "  first-12").length, 0, done);
});

/** The clock's line and the lines under it. */
function liveBlock(screen: string): string[] {
  const lines = screen.split("\n");
  const clock = lines.findIndex((line) => /^bash> .* \d+s$/.test(line));
  assert.ok(clock >= 0, `no clock line:\n${screen}`);
  return lines.slice(clock, clock + 6);
}
