// A subagent in a worktree (task call with isolation "worktree"), from the attacker's side: its
// commands run in the worktree's own sandbox, and when it ends harness itself runs git there
// (status, add, commit, diff) outside any sandbox. The child tries to plant what that git, or the
// user's next git in the main checkout, would run: a hook in the main `.git/hooks`, an fsmonitor
// command or hooksPath in its worktree's `config.worktree`, its `.git` file pointed at a folder
// it controls (by a command and by write_file), and it tries to edit the main checkout and move
// `main`. All are blocked; its own work still becomes a commit on its branch. As root and as
// nobody, the canary HOME under /var/tmp.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { byConversation } from "../support/fake-llm/server.ts";
import { canaryRepository } from "../support/git-hook-attacks.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { taskCall, text } from "../support/subagent-steps.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

for (const identity of IDENTITIES) {
  test(`as ${identity}: a worktree subagent cannot plant what harness's git or the main checkout's runs`, {
    skip: needs("bwrap") || skipAs(identity),
  }, async () => {
    const { home, repo, git, pwned } = canaryRepository(identity, "harness-subagent-worktree-home-");
    const mainHead = git(repo, "rev-parse", "main").trim();
    const evil = join(home, "evil-git");
    const script = `printf '#!/bin/sh\\ntouch ${pwned}\\n'`;
    // `$admin` is the child's own git folder (.git/worktrees/<id>), found from inside.
    const attacks = [
      `admin=$(git rev-parse --path-format=absolute --git-dir)`,
      `${script} > ${repo}/.git/hooks/pre-commit; chmod +x ${repo}/.git/hooks/pre-commit; echo "hook: $?"`,
      `printf '[core]\\nfsmonitor=touch ${pwned}\\nhooksPath=${home}\\n' > $admin/config.worktree; echo "fsmonitor: $?"`,
      `git config core.fsmonitor "touch ${pwned}"; echo "config: $?"`,
      `mkdir -p ${evil} 2>/dev/null; echo "gitdir: ${evil}" > .git; echo "dotgit: $?"`,
      `git update-ref refs/heads/main HEAD~0 2>&1; echo x > ${repo}/a.txt; echo "main: $?"`,
      `echo work > b.txt; echo "worked: $?"`,
    ].join("\n");
    const fake = await serve(
      byConversation({
        "PARENT:": [
          {
            reply: {
              toolCalls: [
                taskCall("call_w", { prompt: "CHILD: attack", tools: ["bash", "write_file"], isolation: "worktree" }),
              ],
            },
          },
          text("done"),
        ],
        "CHILD:": [
          {
            reply: {
              toolCalls: [
                { id: "attack", name: "bash", arguments: { command: attacks } },
                { id: "write", name: "write_file", arguments: { path: ".git", content: `gitdir: ${evil}\n` } },
              ],
            },
          },
          text("child done"),
        ],
      }),
    );
    const env = cleanEnv({
      HOME: home,
      HARNESS_HOME: join(home, ".harness"),
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
    });
    const result = await runCli(["-y", "--sandbox", "on", ...fakeFlags(fake), "-p", "PARENT: go"], {
      cwd: repo,
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    const child = fake.requests
      .filter((request) =>
        JSON.stringify(request.body.messages.find((m: { role: string }) => m.role === "user")).includes("CHILD:"),
      )
      .at(-1);
    const resultOf = (id: string) =>
      String(child?.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === id)?.content);
    const said = resultOf("attack");
    for (const blocked of ["hook", "fsmonitor", "config", "dotgit", "main"])
      assert.match(said, new RegExp(`${blocked}: [1-9]`), `${blocked} was not blocked:\n${said}`);
    assert.match(said, /worked: 0/, said);
    assert.match(
      resultOf("write"),
      /did not allow this tool call.*is under \.git/,
      "write_file replaced the worktree's .git file",
    );

    // Its work is a commit on its branch, made by harness's own git, which ran nothing planted.
    const parentSaid = JSON.stringify(fake.requests.at(-1)?.body.messages);
    const branch = /branch (harness\/agent-[\w.-]+) \(1 file \+1 -0/.exec(parentSaid)?.[1];
    assert.ok(branch, parentSaid);
    assert.equal(git(repo, "show", `${branch}:b.txt`), "work\n");
    assert.equal(git(repo, "rev-parse", "main").trim(), mainHead);
    assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "main\n");
    assert.equal(existsSync(join(repo, ".git", "hooks", "pre-commit")), false);
    git(repo, "commit", "-q", "--allow-empty", "-m", "mine");
    git(repo, "status");
    assert.equal(existsSync(pwned), false, "a planted command ran outside the sandbox");
  });
}
