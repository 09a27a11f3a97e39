// Red team, issue 51: the user's ~/.gitconfig includes another file (`[include] path =
// ~/.gitconfig.local`, a common way to keep machine settings apart) that sets `core.hooksPath =
// .githooks`. Git follows the include when it runs hooks; harness read `git config --global`
// without `--includes`, so the folder stayed writable: a sandboxed command planted
// `.githooks/pre-commit` and the user's next `git commit` ran it outside the sandbox. Now the
// global and system values are read with their includes (src/shared/git-hooks-path.ts).
// As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { assertHookNotPlanted, gitAs } from "../support/git-hook-attacks.ts";
import { fakeServerPerTest } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a core.hooksPath from an included global config is protected`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hookspath-include-home-");
    const project = join(home, "project");
    mkdirSync(project);
    writeFileSync(join(home, ".gitconfig"), `[include]\n\tpath = ${join(home, ".gitconfig.local")}\n`);
    writeFileSync(join(home, ".gitconfig.local"), "[core]\n\thooksPath = .githooks\n");
    const git = gitAs(identity, home);
    handTo(identity, home);
    git(project, "init", "-q");
    assert.equal(
      git(project, "config", "--get", "core.hooksPath").trim(),
      ".githooks",
      "git itself sees the included value",
    );
    await assertHookNotPlanted(serve, { identity, home, project, hooks: ".githooks" });
  });
}
