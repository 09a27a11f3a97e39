// Worktrees in the chat (tmux, real git): `/worktree name` moves the conversation into a new
// worktree, where its tools then work; leaving a chat that works in one asks what becomes of it:
// merge (leftovers committed, merged into the checkout it came from, worktree and branch removed),
// discard (asked again, naming the uncommitted work), and one where nothing changed is removed
// without a question.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { committedRepository } from "../support/git-repository.ts";
import { fakeServerPerTest } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { openTrustedChat } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();

const bash = (command: string) => ({ reply: { toolCalls: [{ name: "bash", arguments: { command } }] } });

test("/worktree moves the conversation into a worktree; leaving it, merge brings the work back", {
  skip: needs("tmux"),
}, async () => {
  const { repo, git, worktrees } = committedRepository("harness-worktree-chat-");
  const fake = await serve([
    { reply: { text: "hello there" } },
    bash("pwd; echo chat > w.txt"),
    { reply: { text: "written" } },
  ]);
  const terminal = await openTrustedChat(fake, repo, ["-y"]);
  terminal.type("hi");
  terminal.send(["Enter"]);
  await terminal.waitFor(/hello there/);
  terminal.type("/worktree feat");
  terminal.send(["Enter"]);
  await terminal.waitFor(new RegExp(`moving this session to worktree ${worktrees}/feat on branch harness/feat`));
  await terminal.waitFor(/> $/m, "the prompt in the worktree");
  terminal.type("write it");
  terminal.send(["Enter"]);
  await terminal.waitFor(/written/);
  // The same conversation goes on, and its command ran in the worktree.
  const after = JSON.stringify(fake.requests[2].body.messages);
  assert.match(after, /hello there/);
  assert.match(after, new RegExp(`${worktrees}/feat`));
  assert.equal(existsSync(join(repo, "w.txt")), false);

  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(
    /worktree feat \(harness\/feat\): 0 commit\(s\), 1 uncommitted file\(s\)\. Keep it \(k\), merge/,
  );
  terminal.type("m");
  terminal.send(["Enter"]);
  await terminal.waitFor(/merged harness\/feat into .*; removed the worktree and its branch/);
  await terminal.waitFor(/\[exit 0\]/);
  assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "chat\n");
  assert.match(git("log", "-1", "--format=%s"), /^Merge harness\/feat \(harness session [0-9a-z-]+\)/);
  assert.equal(git("branch", "--list", "harness/*"), "");
  assert.equal(existsSync(worktrees), false, "nothing left behind");
});

test("leaving a -w chat: discard asks again for uncommitted work; an untouched one goes unasked", {
  skip: needs("tmux"),
}, async () => {
  const { repo, git, worktrees } = committedRepository("harness-worktree-chat-");
  const fake = await serve([bash("echo x > d.txt"), { reply: { text: "made d" } }]);
  const terminal = await openTrustedChat(fake, repo, ["-y", "-w", "two"]);
  terminal.type("make d");
  terminal.send(["Enter"]);
  await terminal.waitFor(/made d/);
  terminal.type("/exit");
  terminal.send(["Enter"]);
  await terminal.waitFor(/Keep it \(k\), merge it into .*repo \(m\), or discard it \(d\)\? \[k\]/);
  terminal.type("d");
  terminal.send(["Enter"]);
  await terminal.waitFor(/discard 1 uncommitted file\(s\)\? This cannot be undone\. Type yes to discard:/);
  assert.ok(existsSync(join(worktrees, "two", "d.txt")), "nothing is removed before the answer");
  terminal.type("yes");
  terminal.send(["Enter"]);
  await terminal.waitFor(/discarded worktree two and branch harness\/two/);
  await terminal.waitFor(/\[exit 0\]/);
  assert.equal(existsSync(join(worktrees, "two")), false);
  assert.equal(git("branch", "--list", "harness/*"), "");

  const idle = await openTrustedChat(fake, repo, ["-w", "three"]);
  idle.type("/exit");
  idle.send(["Enter"]);
  await idle.waitFor(/nothing changed in worktree three: removed it and branch harness\/three/);
  await idle.waitFor(/\[exit 0\]/);
  assert.equal(existsSync(worktrees), false, "nothing left behind");
});
