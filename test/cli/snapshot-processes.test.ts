// How many `git` processes the undo snapshots start (issue 52): the snapshot before a turn's first
// command holds that command, and the one after the turn holds a one-shot's exit, so each process
// is felt. A logging `git` first on the PATH records every subcommand the built CLI starts, and
// the model's command writes COMMAND into the same log, so the lists show what ran before it;
// they are exact, so a change that adds a process fails here. Counts, not times.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { findExecutable } from "../../src/shared/system-program.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { readIfThere as read } from "../support/undo-helpers.ts";

const serve = fakeServerPerTest();

/**
 * A `git` that appends its subcommand (the first argument after the `-c key=value` pairs) to a
 * log, runs the real one, then appends "done"; `slowLsFiles`: `ls-files` takes a second longer.
 */
function loggingGit(lsFilesDelaySeconds = 0): { path: string; log: string; calls(): string[]; done(): number } {
  const dir = tempDir("harness-git-log-");
  const log = join(dir, "calls");
  const real = findExecutable("git", process.env.PATH ?? "");
  assert.ok(real, "git is on the PATH");
  writeFileSync(
    join(dir, "git"),
    `#!/bin/sh
skip=
for arg in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case "$arg" in -c) skip=1 ;; -*) ;; *) echo "$arg" >> '${log}'; sub="$arg"; break ;; esac
done
${lsFilesDelaySeconds > 0 ? `[ "$sub" = ls-files ] && sleep ${lsFilesDelaySeconds}` : ""}
'${real}' "$@"
code=$?
echo done >> '${log}'
exit $code
`,
  );
  chmodSync(join(dir, "git"), 0o755);
  writeFileSync(log, "");
  return {
    path: `${dir}:${process.env.PATH}`,
    log,
    // Pruning lists the snapshot refs once per session, in the background beside the turn
    // (TurnSnapshots): not on the path of a command or of the exit, so left out of the counts.
    calls: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((call) => call !== "" && call !== "done" && call !== "for-each-ref"),
    done: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((call) => call === "done").length,
  };
}

const bashTurn = (command: string) => [
  { reply: { toolCalls: [{ name: "bash", arguments: { command } }] } },
  { reply: { text: "done" } },
];

test("one git process before a session's first command, three (or one) after the turn; undo still works", async () => {
  const git = loggingGit();
  const env = cleanEnv({ PATH: git.path });
  const cwd = tempDir("harness-count-ws-");
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "b.txt"), "beta\n");

  // A fresh $HARNESS_HOME: the shadow repository is made without git, the commits are written by
  // harness. The index is brought up to date beside the model's first request; the snapshot
  // before the command then finds nothing changed since; the one after the turn stores a.txt.
  const changing = await runCli(
    [
      ...fakeFlags(await serve(bashTurn(`echo changed > a.txt; echo COMMAND >> '${git.log}'`))),
      ...["-y", "--sandbox", "off", "-p", "go"],
    ],
    { env, cwd },
  );
  assert.equal(changing.code, 0, changing.stderr);
  const update = ["ls-files", "update-index", "write-tree"];
  assert.deepEqual(git.calls(), [...update, "ls-files", "COMMAND", ...update]);

  // The snapshots written this way are what `harness undo` goes back to: the change is undone.
  const undo = await runCli(["undo"], { env, cwd });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(read(cwd, "a.txt"), "alpha\n");

  // A new session on the same workspace whose command changes nothing: it starts from the newest
  // index, so nothing is stored; the after-turn snapshot finds nothing changed since the tree it knows.
  const before = git.calls().length;
  const still = await runCli(
    [...fakeFlags(await serve(bashTurn(`echo COMMAND >> '${git.log}'`))), ...["-y", "--sandbox", "off", "-p", "go"]],
    { env, cwd },
  );
  assert.equal(still.code, 0, still.stderr);
  assert.deepEqual(git.calls().slice(before), ["ls-files", "write-tree", "ls-files", "COMMAND", "ls-files"]);
});

test("a one-shot that changes no file ends its warming's listing at the exit and leaves no git writing", async () => {
  // The listing is held far longer than the run takes (a FIFO named .gitignore holds git's for
  // 120 s): the exit must not wait for it, and the index's writers must never start after it.
  const git = loggingGit(60);
  const env = cleanEnv({ PATH: git.path });
  const cwd = tempDir("harness-count-ws-");
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  const result = await runCli([...fakeFlags(await serve([{ reply: { text: "hi" } }])), "-p", "hello"], { env, cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(git.calls(), ["ls-files"], "only the listing had started, and it was ended");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(git.calls(), ["ls-files"], "no git started after the exit");
});
