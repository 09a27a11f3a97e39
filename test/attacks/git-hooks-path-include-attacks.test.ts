// Red team, issue 51: the user's ~/.gitconfig includes another file (`[include] path =
// ~/.gitconfig.local`, a common way to keep machine settings apart) that sets `core.hooksPath =
// .githooks`. Git follows the include when it runs hooks; harness read `git config --global`
// without `--includes`, so the folder stayed writable: a sandboxed command planted
// `.githooks/pre-commit` and the user's next `git commit` ran it outside the sandbox. Now the
// global and system values are read with their includes (src/shared/git-hooks-path.ts).
// As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a core.hooksPath from an included global config is protected`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hookspath-include-home-");
    const pwned = join(home, "PWNED");
    const project = join(home, "project");
    mkdirSync(project);
    writeFileSync(join(home, ".gitconfig"), `[include]\n\tpath = ${join(home, ".gitconfig.local")}\n`);
    writeFileSync(join(home, ".gitconfig.local"), "[core]\n\thooksPath = .githooks\n");
    const git = (...args: string[]) =>
      execFileSync(
        runAs(identity)[0] ?? "git",
        [...runAs(identity).slice(1), ...(identity === "root" ? [] : ["git"]), "-c", "safe.directory=*", ...args],
        {
          cwd: project,
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
    assert.equal(git("config", "--get", "core.hooksPath").trim(), ".githooks", "git itself sees the included value");
    const plant = `mkdir -p .githooks; printf '#!/bin/sh\\ntouch ${pwned}\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit; echo "planted: $?"`;
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
    assert.equal(existsSync(join(project, ".githooks", "pre-commit")), false);
  });
}
