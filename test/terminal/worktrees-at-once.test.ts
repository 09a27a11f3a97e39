// Several sessions in worktrees of one repository at once (issue 45): two chats (tmux, `-w a`,
// `-w b`) and a one-shot run (`-w c -p`), sharing one home, each write the same file name and one
// of their own; no model answers until all three have asked, so their work overlaps. Each worktree
// holds only its own work, the main checkout none; leaving, a discarded chat's worktree and branch
// go, a kept one's stay.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { committedRepository } from "../support/git-repository.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

test("two chats and a one-shot in worktrees of one repository at once touch only their own files", {
  skip: needs("tmux"),
}, async () => {
  const { repo, git, worktrees } = committedRepository("harness-worktrees-at-once-");
  const env = cleanEnv() as Record<string, string>;
  // The first answer of each session waits until all three sessions have asked for one.
  let asked = 0;
  let allAsked: () => void = () => {};
  const together = new Promise<void>((resolve) => (allAsked = resolve));
  const script = (name: string): ScriptStep[] => [
    async () => {
      if (++asked === 3) allAsked();
      await together;
      const command = `pwd; echo ${name} > shared.txt; echo ${name} > only-${name}.txt`;
      return { reply: { toolCalls: [{ name: "bash", arguments: { command } }] } };
    },
    { reply: { text: `${name} written` } },
  ];
  const [fakeA, fakeB, fakeC] = await Promise.all(["a", "b", "c"].map((name) => serve(script(name))));
  const chat = (name: string, fake: typeof fakeA) =>
    TmuxTerminal.start({
      args: ["-y", "-w", name, "--trust", ...fakeFlags(fake)],
      cwd: repo,
      env: { ...env, TERM: "xterm-256color" },
      columns: 160,
    });
  const chatA = chat("a", fakeA);
  const chatB = chat("b", fakeB);
  const oneShot = runCli(["-y", "-w", "c", ...fakeFlags(fakeC), "-p", "write c"], { env, cwd: repo });
  for (const [terminal, name] of [
    [chatA, "a"],
    [chatB, "b"],
  ] as const) {
    await terminal.waitFor(/> $/m, `chat ${name}'s prompt`);
    terminal.type(`write ${name}`);
    terminal.send(["Enter"]);
  }
  await chatA.waitFor(/a written/);
  await chatB.waitFor(/b written/);
  const run = await oneShot;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`working in worktree ${worktrees}/c on branch harness/c`));

  for (const name of ["a", "b", "c"]) {
    const dir = join(worktrees, name);
    assert.equal(readFileSync(join(dir, "shared.txt"), "utf8"), `${name}\n`, `${name}'s shared.txt is its own`);
    assert.deepEqual(
      // Dot files are the running session's sandbox placeholders (.mcp.json, .claude, ...), and .git.
      readdirSync(dir)
        .filter((file) => !file.startsWith("."))
        .sort(),
      ["a.txt", `only-${name}.txt`, "shared.txt"],
      `worktree ${name} has only its own files`,
    );
    assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "a\n");
  }
  assert.deepEqual(readdirSync(repo).sort(), [".git", "a.txt"], "the main checkout is untouched");
  assert.equal(git("status", "--porcelain"), "");
  assert.equal(git("rev-parse", "--abbrev-ref", "HEAD").trim(), "main");
  assert.deepEqual(git("branch", "--list", "harness/*", "--format=%(refname:short)").trim().split("\n"), [
    "harness/a",
    "harness/b",
    "harness/c",
  ]);

  // Leaving: chat A discards its work, chat B keeps it.
  chatA.type("/exit");
  chatA.send(["Enter"]);
  chatB.type("/exit");
  chatB.send(["Enter"]);
  await chatA.waitFor(/worktree a \(harness\/a\): 0 commit\(s\), 2 uncommitted file\(s\)\. Keep it \(k\)/);
  await chatB.waitFor(/worktree b \(harness\/b\): 0 commit\(s\), 2 uncommitted file\(s\)\. Keep it \(k\)/);
  chatA.type("d");
  chatA.send(["Enter"]);
  await chatA.waitFor(/discard 2 uncommitted file\(s\)\? This cannot be undone\. Type yes to discard:/);
  chatA.type("yes");
  chatA.send(["Enter"]);
  chatB.type("k");
  chatB.send(["Enter"]);
  await chatA.waitFor(/discarded worktree a and branch harness\/a/);
  await chatA.waitFor(/\[exit 0\]/);
  await chatB.waitFor(/kept: the work is on branch harness\/b in .*harness worktrees merge\|keep\|discard b/);
  await chatB.waitFor(/\[exit 0\]/);

  assert.equal(existsSync(join(worktrees, "a")), false, "a's worktree is gone");
  for (const name of ["b", "c"]) {
    // Ended sessions leave no placeholders: exactly their own work.
    assert.deepEqual(readdirSync(join(worktrees, name)).sort(), [".git", "a.txt", `only-${name}.txt`, "shared.txt"]);
    assert.equal(readFileSync(join(worktrees, name, "shared.txt"), "utf8"), `${name}\n`);
  }
  assert.deepEqual(git("branch", "--list", "harness/*", "--format=%(refname:short)").trim().split("\n"), [
    "harness/b",
    "harness/c",
  ]);
  assert.doesNotMatch(git("worktree", "list"), /repo\.worktrees\/a\b/);
  assert.deepEqual(readdirSync(repo).sort(), [".git", "a.txt"], "the main checkout is still untouched");
});
