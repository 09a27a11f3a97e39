// Red team, issue 51: in a linked git worktree (`git worktree add`), `.git` is a file naming the
// main repository, whose config sets `core.hooksPath = .husky` (husky). harness looked only for a
// `.git` folder, so `.husky/` stayed writable there: a sandboxed command planted
// `.husky/pre-commit` and the user's next `git commit` in the worktree ran it outside the sandbox.
// Now a `.git` file is followed to the repository's config (src/shared/git-hooks-path.ts).
// As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: the core.hooksPath of a linked worktree's repository is protected`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hookspath-worktree-home-");
    const pwned = join(home, "PWNED");
    const main = join(home, "main");
    const project = join(home, "worktree");
    mkdirSync(main);
    const git = (...args: string[]) =>
      execFileSync(
        runAs(identity)[0] ?? "git",
        [...runAs(identity).slice(1), ...(identity === "root" ? [] : ["git"]), "-c", "safe.directory=*", ...args],
        {
          cwd: existsSync(project) ? project : main,
          encoding: "utf8",
          env: {
            ...process.env,
            HOME: home,
            GIT_AUTHOR_NAME: "t",
            GIT_AUTHOR_EMAIL: "t@example.com",
            GIT_COMMITTER_NAME: "t",
            GIT_COMMITTER_EMAIL: "t@example.com",
          },
        },
      );
    handTo(identity, home);
    git("init", "-q");
    git("config", "core.hooksPath", ".husky");
    git("commit", "-q", "--allow-empty", "-m", "first");
    git("worktree", "add", "-q", project);
    assert.equal(git("config", "--get", "core.hooksPath").trim(), ".husky", "git in the worktree sees the value");
    const plant = `mkdir -p .husky; printf '#!/bin/sh\\ntouch ${pwned}\\n' > .husky/pre-commit && chmod +x .husky/pre-commit; echo "planted: $?"`;
    const fake = await serve([
      { reply: { toolCalls: [{ id: "plant", name: "bash", arguments: { command: plant } }] } },
      { reply: { text: "planted" } },
    ]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "set up hooks"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(toolResultOf(fake, 1, "plant"), /planted: [1-9]/);
    git("commit", "-q", "--allow-empty", "-m", "mine");
    assert.equal(existsSync(pwned), false, "a planted hook ran outside the sandbox");
    assert.equal(existsSync(join(project, ".husky", "pre-commit")), false);
  });
}
