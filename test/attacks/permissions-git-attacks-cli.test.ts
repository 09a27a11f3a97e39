// A model that wants to push past `deny: ["Bash(git push:*)"]` (and commit past an ask rule) by
// putting git's own options before the subcommand: `git -C . push`, `git -c x=y push`,
// `--git-dir`, `--no-pager`, an alias given with `-c`. Through the built CLI against the fake
// server, with --yes and no sandbox (so nothing but the rules stands in the way), as root and as
// nobody, in a HOME under /var/tmp holding a real repository and the bare remote it pushes to.
// Then every spelling of shell-spellings.ts (computed words, globs, xargs, case and coproc, git's
// configuration from the environment and from files) against a deny rule and an ask rule.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  cleanEnv,
  fakeFlags,
  fakeServerPerTest,
  runCli,
  toolResultOf as toolResult,
  writeJson,
} from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, type Identity, runAs, skipAs } from "../support/identities.ts";
import { GIT_PUSH_SPELLINGS, RM_SPELLINGS } from "../support/shell-spellings.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

// safe.directory: the checks run as root in a repository nobody may own.
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    encoding: "utf8",
  });

/**
 * A repository with one commit, its `origin` an empty bare repository beside it, Claude settings
 * guarding it with `permissions`, and whatever `prepare` adds to the HOME or the project.
 */
function guardedRepository(
  identity: Identity,
  permissions: Record<string, string[]>,
  prepare: (home: string, project: string) => void = () => {},
) {
  const home = canaryHomeDir("harness-git-canary-");
  const project = join(home, "project");
  const remote = join(home, "remote.git");
  mkdirSync(project);
  git(home, "init", "-q", "--bare", remote);
  git(project, "init", "-q", "-b", "main");
  git(project, "commit", "-q", "--allow-empty", "-m", "the only commit");
  git(project, "remote", "add", "origin", remote);
  const settings = join(project, ".claude", "settings.json");
  writeJson(settings, { permissions });
  mkdirSync(join(home, ".harness"));
  prepare(home, project);
  handTo(identity, home);
  const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness"), CLAUDE_CONFIG_DIR: join(home, ".claude") });
  return { home, project, remote, settings, env };
}

/** The model runs each of `commands` (ids `c0`, `c1`, …) and then `last` (id `last`), in one turn, under --yes. */
async function attack(identity: Identity, project: string, env: NodeJS.ProcessEnv, commands: string[], last: string) {
  const calls = [...commands, last].map((command, index) => ({
    id: index === commands.length ? "last" : `c${index}`,
    name: "bash",
    arguments: { command },
  }));
  const fake = await serve([{ reply: { toolCalls: calls } }, { reply: { text: "tried" } }]);
  const result = await runCli(["--yes", "--sandbox", "off", ...fakeFlags(fake), "-p", "ship it"], {
    cwd: project,
    env,
    wrap: runAs(identity),
  });
  assert.equal(result.code, 0, result.stderr);
  return fake;
}

const pushes = [
  "git -C . push origin main",
  "git -C. push origin main",
  "git -c push.default=current push",
  "git --git-dir=.git push origin main",
  "git --git-dir .git --work-tree . push origin main",
  "git --no-pager push origin main",
  "git -P --no-optional-locks -c color.ui=never push origin main",
  "git --namespace=n --literal-pathspecs push origin main",
  "/usr/bin/git -C . push origin main",
  "env GIT_TRACE=0 git -C . push origin main",
  "git -c alias.ship=push ship origin main",
  "git -c 'alias.ship=!git push origin main' ship",
];
const commits = ["git -C . commit --allow-empty -m sneaked", "git -c core.editor=true commit --allow-empty -m sneaked"];

for (const identity of IDENTITIES) {
  test(`as ${identity}: git's own options before the subcommand do not get a push past a deny rule or a commit past an ask rule, with --yes`, {
    skip: needs("setpriv") || skipAs(identity),
  }, async () => {
    const { project, remote, env } = guardedRepository(identity, {
      allow: ["Bash"],
      deny: ["Bash(git push:*)"],
      ask: ["Bash(git commit:*)"],
    });
    const fake = await attack(identity, project, env, [...pushes, ...commits], "git -C . log --format=%s");
    assert.equal(git(project, "--git-dir", remote, "for-each-ref"), "", "nothing reached the remote");
    assert.equal(git(project, "rev-list", "--count", "HEAD"), "1\n", "no commit was made");
    for (const [index, command] of pushes.entries())
      assert.match(
        toolResult(fake, 1, `c${index}`),
        /the rule Bash\(git push:\*\) in .*\.claude\/settings\.json forbids `git push/,
        command,
      );
    for (const [index, command] of commits.entries())
      assert.match(
        toolResult(fake, 1, `c${pushes.length + index}`),
        /the ask rule Bash\(git commit:\*\) in .*\.claude\/settings\.json asks before `git commit/,
        command,
      );
    assert.match(toolResult(fake, 1, "last"), /^the only commit\n/, "a git command no rule names still runs");
  });
}

/**
 * What the spellings of shell-spellings.ts need: a file named `push` (for `pu?h`), a canary
 * `victim.txt`, and `{home}/ship.gitconfig` and `{home}/alt/.gitconfig` defining `alias.ship = push`.
 */
function prepareSpellings(home: string, project: string): void {
  writeFileSync(join(project, "push"), "a file for globs to find\n");
  writeFileSync(join(project, "victim.txt"), "still here\n");
  writeFileSync(join(home, "ship.gitconfig"), "[alias]\n\tship = push\n");
  mkdirSync(join(home, "alt"));
  writeFileSync(join(home, "alt", ".gitconfig"), "[alias]\n\tship = push\n[safe]\n\tdirectory = *\n");
}

for (const identity of IDENTITIES)
  for (const kind of ["deny", "ask"] as const) {
    test(`as ${identity}: with ${kind === "ask" ? "an" : "a"} ${kind} rule on git push and rm and --yes, no spelling pushes or removes, however it hides the command`, {
      skip: needs("setpriv") || skipAs(identity),
    }, async () => {
      const { home, project, remote, settings, env } = guardedRepository(
        identity,
        { allow: ["Bash"], [kind]: ["Bash(git push:*)", "Bash(rm:*)"] },
        prepareSpellings,
      );
      const spellings = [...GIT_PUSH_SPELLINGS, ...RM_SPELLINGS].map(([command]) => command.replaceAll("{home}", home));
      const fake = await attack(identity, project, env, spellings, "git log --format=%s && cat victim.txt");
      assert.equal(git(project, "--git-dir", remote, "for-each-ref"), "", "nothing reached the remote");
      assert.equal(readFileSync(join(project, "victim.txt"), "utf8"), "still here\n", "the canary is still there");
      // Written out, the rule names the command; hidden, harness says it cannot tell what it runs.
      const what = "(`(git push|rm)\\b|what this command may run: harness cannot tell what it runs)";
      const refusal =
        kind === "deny"
          ? `the rule Bash\\((git push|rm):\\*\\) in ${settings} forbids ${what}`
          : `no one was there to approve it .*the ask rule Bash\\((git push|rm):\\*\\) in ${settings} asks before ${what}`;
      for (const [index, command] of spellings.entries())
        assert.match(toolResult(fake, 1, `c${index}`), new RegExp(refusal), command);
      assert.match(toolResult(fake, 1, "last"), /^the only commit\nstill here\n/, "commands no rule names still run");
    });
  }
