// `harness serve`'s worktree request from the attacker's side: a client (token in hand) names a
// worktree that would leave `<repo>.worktrees` (`../`, an absolute path, a git option) hoping the
// server makes a folder or branch elsewhere. Each is a 400 and nothing is made: no folder beside
// or above the repository, no branch, no worktree. As root and as nobody, HOME under /var/tmp.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import type { ServeClientError } from "../../src/server/serve-client.ts";
import { canaryRepository } from "../support/git-hook-attacks.ts";
import { cleanEnv, fakeServerPerTest } from "../support/helpers.ts";
import { IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { startServe } from "../support/serve.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a served worktree's name cannot escape <repo>.worktrees`, {
    skip: skipAs(identity),
  }, async () => {
    const { home, repo, git } = canaryRepository(identity, "harness-serve-worktree-");
    const fake = await serve([]);
    const { client } = await startServe(fake, {
      env: cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness"), HARNESS_API_KEY: "test-key" }),
      wrap: runAs(identity),
      cwd: repo,
    });
    const outside = join(dirname(home), `${home.split("/").at(-1)}-escaped`);
    const before = readdirSync(home).sort();
    const names = [
      "../escaped",
      "../../escaped",
      `../../${outside.split("/").at(-1)}`,
      outside,
      "/tmp/escaped",
      "..",
      ".",
      "a/../../escaped",
      "--orphan",
      "x\n../y",
      `${"a".repeat(65)}`,
    ];
    for (const name of names) {
      await assert.rejects(
        client.createSession({ cwd: repo, worktree: name }),
        (error: ServeClientError) => error.status === 400 && /cannot name a worktree/.test(error.message),
        JSON.stringify(name),
      );
    }
    assert.deepEqual(readdirSync(home).sort(), before, "nothing made beside the repository");
    assert.equal(existsSync(outside), false);
    assert.equal(existsSync("/tmp/escaped"), false);
    assert.equal(git(repo, "branch", "--format=%(refname)").trim(), "refs/heads/main");
    assert.equal(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length, 1);
  });
}
