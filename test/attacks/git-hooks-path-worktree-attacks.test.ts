// Red team, issue 51: in a linked git worktree (`git worktree add`), `.git` is a file naming the
// main repository, whose config sets `core.hooksPath = .husky` (husky). harness looked only for a
// `.git` folder, so `.husky/` stayed writable there: a sandboxed command planted
// `.husky/pre-commit` and the user's next `git commit` in the worktree ran it outside the sandbox.
// Now a `.git` file is followed to the repository's config (src/shared/git-hooks-path.ts).
// As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { assertHookNotPlanted, gitAs } from "../support/git-hook-attacks.ts";
import { fakeServerPerTest } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: the core.hooksPath of a linked worktree's repository is protected`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hookspath-worktree-home-");
    const main = join(home, "main");
    const project = join(home, "worktree");
    mkdirSync(main);
    const git = gitAs(identity, home);
    handTo(identity, home);
    git(main, "init", "-q");
    git(main, "config", "core.hooksPath", ".husky");
    git(main, "commit", "-q", "--allow-empty", "-m", "first");
    git(main, "worktree", "add", "-q", project);
    assert.equal(
      git(project, "config", "--get", "core.hooksPath").trim(),
      ".husky",
      "git in the worktree sees the value",
    );
    await assertHookNotPlanted(serve, { identity, home, project, hooks: ".husky" });
  });
}
