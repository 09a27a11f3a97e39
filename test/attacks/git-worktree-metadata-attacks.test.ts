// Red team, issue 51: a session in the main checkout could write the git metadata of an existing
// linked worktree (`.git/worktrees/<id>/`): point its `commondir` at a repository the command made,
// whose config sets `core.hooksPath`, or (with `extensions.worktreeConfig`) write `core.hooksPath`
// into its `config.worktree`, or move the folder aside and make a new one. The user's next
// `git commit` in that worktree ran the planted hook outside the sandbox. Now the folder and those
// files are mounted read-only (src/sandbox/worktree-metadata-mounts.ts).
// As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { gitAs, plantedHook, runAgentCommand } from "../support/git-hook-attacks.ts";
import { fakeServerPerTest } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

// With extensions.worktreeConfig git reads config.worktree (and a missing one makes the worktree's
// folder read-only); without it git ignores that file, and the folder stays writable.
for (const [identity, worktreeConfig] of IDENTITIES.flatMap((who) => [true, false].map((on) => [who, on] as const)))
  test(`as ${identity}: a linked worktree's commondir and config.worktree cannot be redirected (worktreeConfig ${worktreeConfig})`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-worktree-metadata-home-");
    const project = join(home, "main");
    const linked = join(home, "linked");
    mkdirSync(project);
    const git = gitAs(identity, home);
    handTo(identity, home);
    git(project, "init", "-q");
    git(project, "commit", "-q", "--allow-empty", "-m", "first");
    git(project, "worktree", "add", "-q", linked);
    if (worktreeConfig) git(project, "config", "extensions.worktreeConfig", "true");
    const admin = join(project, ".git/worktrees/linked");
    const commondir = readFileSync(join(admin, "commondir"), "utf8");
    const pwned = join(home, "PWNED");
    const hooks = join(project, "evil/hooks");
    const hooksConfig = `printf '[core]\\n\\thooksPath = ${hooks}\\n'`;
    const A = ".git/worktrees/linked";
    const plant = [
      // Ordinary work first: a new worktree, and a commit in the linked one when its folder is writable.
      `git worktree add -q inner; echo "add: $?"`,
      `git -C ${linked} -c user.name=a -c user.email=a@b commit -q --allow-empty -m agent; echo "agent commit: $?"`,
      `mkdir -p ${hooks} && ${plantedHook(`${hooks}/pre-commit`, pwned)}`,
      `git init -q --bare evil/common && ${hooksConfig} >> evil/common/config`,
      `echo ${project}/evil/common > ${A}/commondir; echo "commondir: $?"`,
      `${hooksConfig} > ${A}/config.worktree; echo "config.worktree: $?"`,
      `echo /nowhere/.git > ${A}/gitdir; echo "gitdir: $?"`,
      `mv ${A} ${A}.old; echo "move: $?"`,
      `mv .git/worktrees .git/old; echo "move worktrees: $?"`,
      // Removing what is writable breaks the worktree (as removing .git/objects would) but plants nothing.
      ...(worktreeConfig ? [`rm -rf .git/worktrees; echo "remove: $?"`] : []),
    ].join("\n");
    const output = await runAgentCommand(serve, { identity, home, project }, plant);
    const blocked = ["commondir", "gitdir", "move", "move worktrees"];
    for (const step of worktreeConfig ? [...blocked, "config.worktree", "remove"] : blocked)
      assert.match(output, new RegExp(`${step}: [1-9]`), output);
    assert.match(output, /add: 0/, output);
    assert.match(output, worktreeConfig ? /agent commit: [1-9]/ : /agent commit: 0/, output);
    assert.equal(readFileSync(join(admin, "commondir"), "utf8"), commondir);
    assert.equal(existsSync(join(admin, "config.worktree")), !worktreeConfig);
    assert.equal(git(linked, "rev-parse", "--git-path", "hooks").trim(), join(project, ".git/hooks"));
    git(linked, "commit", "-q", "--allow-empty", "-m", "mine");
    assert.equal(existsSync(pwned), false, "a planted hook ran outside the sandbox");
  });
