// `harness -w`: a session in its own git worktree, sandboxed. Its commands can commit on its branch
// (the worktree's own git folder, the objects and harness's branch folder are writable), and
// nothing else of the main repository: from the attacker's side, a command tries to plant a hook
// in the main `.git/hooks`, to set `core.hooksPath` in its config, to point the worktree's
// `commondir` or `config.worktree` elsewhere, to move `main`, and to edit the main checkout; the
// user's next `git commit` in the main checkout must run nothing. As root and as nobody, the
// canary HOME under /var/tmp (the sandbox's /tmp is private).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { canaryRepository } from "../support/git-hook-attacks.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a worktree session commits on its branch and cannot touch the main repository`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const { home, repo, git, pwned } = canaryRepository(identity, "harness-worktree-home-");
    const mainHead = git(repo, "rev-parse", "main").trim();
    const hook = `printf '#!/bin/sh\\ntouch ${pwned}\\n'`;
    const admin = join(repo, ".git", "worktrees", "feat");
    const attacks = [
      `${hook} > ${repo}/.git/hooks/pre-commit; chmod +x ${repo}/.git/hooks/pre-commit; echo "hook: $?"`,
      `git config core.hooksPath /tmp/h; echo "hookspath: $?"`,
      `git config --file ${repo}/.git/config core.hooksPath ${home}; echo "config: $?"`,
      `echo ${home} > ${admin}/commondir; echo "commondir: $?"`,
      `printf '[core]\\nhooksPath=${home}\\n' > ${admin}/config.worktree; echo "worktreeconfig: $?"`,
      `git update-ref refs/heads/main HEAD~0 2>&1; echo x > ${repo}/a.txt; echo "main: $?"`,
      `echo work > b.txt && git add b.txt && git commit -q -m work && echo "committed: $?"`,
    ].join("\n");
    const fake = await serve([
      { reply: { toolCalls: [{ id: "attack", name: "bash", arguments: { command: attacks } }] } },
      { reply: { text: "done" } },
    ]);
    const env = cleanEnv({
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
    });
    const result = await runCli(["-y", "--sandbox", "on", "-w", "feat", ...fakeFlags(fake), "-p", "go"], {
      cwd: repo,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    const said = toolResultOf(fake, 1, "attack");
    for (const blocked of ["hook", "hookspath", "config", "commondir", "worktreeconfig", "main"])
      assert.match(said, new RegExp(`${blocked}: [1-9]`), `${blocked} was not blocked:\n${said}`);
    assert.match(said, /committed: 0/, said);
    assert.match(result.stderr, /the work is on branch harness\/feat in .*repo\.worktrees\/feat/);

    // The branch has the commit; main, its checkout and the worktree's pointers are as they were.
    assert.equal(git(repo, "log", "-1", "--format=%s", "harness/feat").trim(), "work");
    assert.equal(git(repo, "rev-parse", "main").trim(), mainHead);
    assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "main\n");
    assert.equal(readFileSync(join(admin, "commondir"), "utf8").trim(), "../..");
    assert.equal(readFileSync(join(admin, "config.worktree"), "utf8"), "");
    assert.equal(existsSync(join(repo, ".git", "hooks", "pre-commit")), false);
    git(repo, "commit", "-q", "--allow-empty", "-m", "mine");
    git(join(home, "repo.worktrees", "feat"), "commit", "-q", "--allow-empty", "-m", "mine too");
    assert.equal(existsSync(pwned), false, "a planted hook ran outside the sandbox");
  });
}
