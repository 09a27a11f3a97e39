// A repository that moves git's hooks with `core.hooksPath` (husky's `.husky/`, a `.githooks/`
// folder not made yet): a sandboxed command writes `pre-commit` there, and the user's next
// `git commit`, outside the sandbox, runs it. Before, only `.git/hooks` was protected. Now the
// hooks path git will use is as protected as `.git/hooks`: read-only for commands (a placeholder
// when it does not exist yet), and write_file there is asked every time, which a headless run
// with --yes refuses. As root and as nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { gitAs, plantedHook } from "../support/git-hook-attacks.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, toolResultOf } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a hook planted in core.hooksPath does not run at the user's next commit`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-hookspath-home-");
    const pwned = join(home, "PWNED");
    const project = join(home, "project");
    const sub = join(project, "sub");
    mkdirSync(join(project, ".husky"), { recursive: true });
    mkdirSync(sub);
    const git = gitAs(identity, home);
    handTo(identity, home);
    git(project, "init", "-q");
    git(project, "config", "core.hooksPath", ".husky"); // husky's folder, there already
    git(sub, "init", "-q");
    git(sub, "config", "core.hooksPath", "githooks"); // a folder not made yet
    const hook = (file: string) => plantedHook(file, pwned);
    const fake = await serve([
      {
        reply: {
          toolCalls: [
            { id: "husky", name: "bash", arguments: { command: `${hook(".husky/pre-commit")}; echo "husky: $?"` } },
            {
              id: "missing",
              name: "bash",
              arguments: { command: `mkdir -p sub/githooks; ${hook("sub/githooks/pre-commit")}; echo "sub: $?"` },
            },
            { id: "tool", name: "write_file", arguments: { path: ".husky/post-commit", content: `touch ${pwned}\n` } },
          ],
        },
      },
      { reply: { text: "planted" } },
    ]);
    const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
    const result = await runCli(["-y", ...fakeFlags(fake), "-p", "set up hooks"], {
      cwd: project,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(toolResultOf(fake, 1, "husky"), /husky: [1-9]/);
    assert.match(toolResultOf(fake, 1, "missing"), /sub: [1-9]/);
    assert.match(toolResultOf(fake, 1, "tool"), /\.husky.*asked/);
    // Back on the host, the user commits in both repositories: nothing planted runs.
    git(project, "commit", "-q", "--allow-empty", "-m", "mine");
    git(sub, "commit", "-q", "--allow-empty", "-m", "mine");
    assert.equal(existsSync(pwned), false, "a planted hook ran outside the sandbox");
    assert.equal(existsSync(join(project, ".husky", "pre-commit")), false);
    assert.equal(existsSync(join(project, ".husky", "post-commit")), false);
    assert.equal(existsSync(join(sub, "githooks")), false, "the placeholder went with harness");
  });
}
