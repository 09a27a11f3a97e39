// `harness -w [name]` through the built CLI, with real git: the session works in a new worktree on
// branch harness/<name> beside the repository, starts in the same subfolder, reads the worktree's
// AGENTS.md, gets the ignored files .worktreeinclude names, records its session id, and undo
// there touches the worktree only. What cannot be a worktree is refused before the model is asked.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

/** A repository with one commit in `<temp>/repo` (so `<temp>/repo.worktrees` goes with the temp folder). */
function repository(): { repo: string; git: (...args: string[]) => string } {
  const repo = join(tempDir("harness-worktree-"), "repo");
  mkdirSync(join(repo, "sub"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
  writeFileSync(join(repo, "sub", "tracked.txt"), "tracked\n");
  writeFileSync(join(repo, "AGENTS.md"), "Worktree rules apply.\n");
  writeFileSync(join(repo, ".gitignore"), ".env\nlocal/\nbuild/\n");
  writeFileSync(join(repo, ".worktreeinclude"), ".env\nlocal/\n");
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  // Ignored and listed: copied. Ignored, not listed: left. Listed but tracked: never overwritten.
  writeFileSync(join(repo, ".env"), "KEY=1\n");
  mkdirSync(join(repo, "local"));
  writeFileSync(join(repo, "local", "config.json"), "{}\n");
  mkdirSync(join(repo, "build"));
  writeFileSync(join(repo, "build", "out.js"), "x\n");
  return { repo, git };
}

test("-w name: a session in its own worktree and branch, with .worktreeinclude's files; undo stays there", async () => {
  const { repo, git } = repository();
  const fake = await serve([
    { reply: { toolCalls: [{ id: "w", name: "bash", arguments: { command: "pwd; echo new > made.txt" } }] } },
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv();
  const run = await runCli(["-y", "-w", "feat", ...fakeFlags(fake), "--output", "stream-json", "-p", "go"], {
    env,
    cwd: join(repo, "sub"),
  });
  assert.equal(run.code, 0, run.stderr);
  const worktree = join(realpathSync(join(repo, "..")), "repo.worktrees", "feat");
  assert.match(run.stderr, new RegExp(`working in worktree ${worktree} on branch harness/feat`));
  assert.match(run.stderr, /copied 2 file\(s\) that \.worktreeinclude names/);
  assert.match(run.stderr, /harness worktrees merge\|keep\|discard feat/);
  // The command ran in the same subfolder of the worktree; the system prompt has its AGENTS.md.
  assert.equal(readFileSync(join(worktree, "sub", "made.txt"), "utf8"), "new\n");
  assert.equal(existsSync(join(repo, "sub", "made.txt")), false, "the main checkout is untouched");
  assert.match(JSON.stringify(fake.requests[0].body.messages[0]), /Worktree rules apply/);
  assert.equal(readFileSync(join(worktree, ".env"), "utf8"), "KEY=1\n");
  assert.equal(readFileSync(join(worktree, "local", "config.json"), "utf8"), "{}\n");
  assert.equal(
    existsSync(join(worktree, "build")),
    false,
    "an ignored file .worktreeinclude does not name is not copied",
  );
  assert.equal(git("rev-parse", "--abbrev-ref", "HEAD").trim(), "main");
  assert.match(git("worktree", "list", "--porcelain"), /branch refs\/heads\/harness\/feat/);
  const sessionId = JSON.parse(run.stdout.split("\n")[0]).sessionId;
  assert.equal(readFileSync(join(repo, ".git", "worktrees", "feat", "harness-session"), "utf8").trim(), sessionId);

  // Undo in the worktree takes back the session's change there, and only there.
  writeFileSync(join(repo, "sub", "made.txt"), "main's own\n");
  const undo = await runCli(["undo"], { env, cwd: join(worktree, "sub") });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(existsSync(join(worktree, "sub", "made.txt")), false);
  assert.equal(readFileSync(join(repo, "sub", "made.txt"), "utf8"), "main's own\n");

  // The same name again, a bad name, -w with -c, and a folder outside any repository: refused (exit 2).
  const again = await runCli(["-w", "feat", ...fakeFlags(fake), "-p", "go"], { env, cwd: repo });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /repo\.worktrees\/feat already exists/);
  const bad = await runCli(["-w", "../x", ...fakeFlags(fake), "-p", "go"], { env, cwd: repo });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"\.\.\/x" cannot name a worktree/);
  const both = await runCli(["-w", "-c", ...fakeFlags(fake), "-p", "go"], { env, cwd: repo });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--worktree starts a new session/);
  const outside = await runCli(["-w", "x", ...fakeFlags(fake), "-p", "go"], { env, cwd: tempDir() });
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /is not in a git repository/);
  assert.equal(fake.requests.length, 2, "no refused run asked the model");
});

test("bare -w on a detached HEAD: named like a session id, branched from the detached commit", async () => {
  const { repo, git } = repository();
  git("commit", "-q", "--allow-empty", "-m", "second");
  git("checkout", "-q", "--detach", "HEAD~1");
  const detached = git("rev-parse", "HEAD").trim();
  const fake = await serve([{ reply: { text: "ok" } }]);
  const run = await runCli(["-w", ...fakeFlags(fake), "-p", "go"], { env: cleanEnv(), cwd: repo });
  assert.equal(run.code, 0, run.stderr);
  const name = /on branch harness\/([0-9a-z]{8,}-[0-9a-z]{4})\n/.exec(run.stderr)?.[1];
  assert.ok(name, run.stderr);
  assert.equal(git("rev-parse", `harness/${name}`).trim(), detached);
});

test("harness worktrees: lists state; merge leaves conflicts; discard never drops work unasked, then leaves nothing", async () => {
  const { repo, git } = repository();
  const env = cleanEnv();
  const folder = join(realpathSync(join(repo, "..")), "repo.worktrees");
  const worktree = (name: string) => {
    git("worktree", "add", "-q", "-b", `harness/${name}`, join(folder, name));
    return (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: join(folder, name),
        encoding: "utf8",
      });
  };
  const clash = worktree("clash");
  writeFileSync(join(folder, "clash", "sub", "tracked.txt"), "theirs\n");
  clash("commit", "-qam", "theirs");
  writeFileSync(join(repo, "sub", "tracked.txt"), "ours\n");
  git("commit", "-qam", "ours");
  const clean = worktree("clean");
  writeFileSync(join(folder, "clean", "new.txt"), "new\n");
  clean("add", "new.txt");
  clean("commit", "-qm", "new file");
  worktree("dirty");
  writeFileSync(join(folder, "dirty", "wip.txt"), "work in progress\n");
  writeFileSync(join(repo, ".git", "worktrees", "dirty", "harness-session"), "m4x7k2qa-3f9z\n");
  const gone = worktree("gone");
  gone("checkout", "-q", "--detach");
  const harness = (...args: string[]) => runCli(["worktrees", ...args], { env, cwd: repo });

  const listed = await harness();
  assert.equal(listed.code, 0, listed.stderr);
  const line = (name: string) => listed.stdout.split("\n").find((text) => text.startsWith(`${name} `)) ?? "";
  assert.match(line("clash"), /harness\/clash {2}1 ahead, 1 behind, clean/);
  assert.match(line("clean"), /1 ahead, 0 behind, clean/);
  assert.match(line("dirty"), /0 ahead, 0 behind, 1 uncommitted {2}session m4x7k2qa-3f9z/);
  assert.match(line("gone"), /HEAD detached from the branch/);

  const conflict = await harness("merge", "clash");
  assert.equal(conflict.code, 1);
  assert.match(conflict.stderr, /stopped on conflicts in:\n {2}sub\/tracked\.txt\n.*nothing was resolved for you/);
  assert.match(
    readFileSync(join(repo, "sub", "tracked.txt"), "utf8"),
    /<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> harness\/clash/,
  );
  assert.equal(existsSync(join(repo, ".git", "MERGE_HEAD")), true, "the merge is left for the person to finish");
  git("merge", "--abort");

  const merged = await harness("merge", "clean");
  assert.equal(merged.code, 0, merged.stderr);
  assert.equal(readFileSync(join(repo, "new.txt"), "utf8"), "new\n");
  assert.match(git("log", "-1", "--format=%s"), /^Merge harness\/clean/);

  // Uncommitted work (or commits merged nowhere) is never removed without --force (stdin is no terminal).
  const refused = await harness("discard", "dirty");
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /dirty kept: it has 1 uncommitted file\(s\)/);
  assert.equal(readFileSync(join(folder, "dirty", "wip.txt"), "utf8"), "work in progress\n");
  const unmerged = await harness("discard", "clash");
  assert.equal(unmerged.code, 1);
  assert.match(unmerged.stderr, /1 commit\(s\) not merged/);

  for (const [name, force] of [
    ["clean", []],
    ["dirty", ["--force"]],
    ["clash", ["--force"]],
    ["gone", ["--force"]],
  ] as const) {
    const discarded = await harness("discard", name, ...force);
    assert.equal(discarded.code, 0, discarded.stderr);
    assert.equal(existsSync(join(folder, name)), false);
  }
  assert.equal(existsSync(folder), false, "nothing is left behind");
  assert.equal(git("branch", "--list", "harness/*").trim(), "");
  assert.doesNotMatch(git("worktree", "list"), /repo\.worktrees/);
  const none = await harness("keep", "clean");
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no worktree clean in this repository/);
});

test("--attempts 3 --test --pick best: three branches at once, a comparison, the smallest passing one merged", async () => {
  const { repo, git } = repository();
  let attempts = 0;
  // Each attempt asks twice: first for a command (attempt k writes k lines), then, with its result, for the answer.
  const step = (request: { body: any }) =>
    request.body.messages.some((message: any) => message.role === "tool")
      ? { reply: { text: "done" } }
      : { reply: { toolCalls: [{ id: "w", name: "bash", arguments: { command: `seq ${++attempts} > answer.txt` } }] } };
  const fake = await serve(Array.from({ length: 6 }, () => step));
  const run = await runCli(
    [
      ...fakeFlags(fake),
      "-w",
      "best",
      "--attempts",
      "3",
      "--test",
      "test $(wc -l < answer.txt) -ge 2",
      "--pick",
      "best",
      "-p",
      "write the answer",
    ],
    { env: cleanEnv(), cwd: repo },
  );
  assert.equal(run.code, 0, run.stderr);
  const [header, ...rows] = run.stdout.trim().split("\n");
  assert.match(header, /^attempt +branch +result +test +diff +tokens +cost +time$/);
  const table = rows.filter((row) => row.startsWith("best-"));
  assert.equal(table.length, 3, run.stdout);
  assert.deepEqual(table.map((row) => /(pass|fail \(1\))/.exec(row)?.[1]).sort(), ["fail (1)", "pass", "pass"]);
  for (const row of table)
    assert.match(row, /harness\/best-\d +stop +\S+( \(1\))? +1 file \+[123] -0 +\d+ +\S+ +\d+\.\ds$/);
  assert.match(run.stdout, /picked best-\d: merged harness\/best-\d/);
  assert.equal(readFileSync(join(repo, "answer.txt"), "utf8"), "1\n2\n", "the smallest passing change was merged");
  assert.equal(git("branch", "--list", "harness/best-*").trim().split("\n").length, 3, "all three branches stay");
  const misuse = await runCli([...fakeFlags(fake), "--pick", "best", "-p", "x"], { env: cleanEnv(), cwd: repo });
  assert.equal(misuse.code, 2);
  assert.match(misuse.stderr, /--test and --pick go with --attempts N/);
});
