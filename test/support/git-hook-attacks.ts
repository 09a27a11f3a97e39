// What the core.hooksPath attacks share (test/attacks/git-hooks-path-*.test.ts): git run as the
// victim in the canary HOME, and the attack itself, a sandboxed command that plants an executable
// hook where the user's next commit, outside the sandbox, would run it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLLM, ScriptStep } from "./fake-llm/server.ts";
import { cleanEnv, fakeFlags, runCli, toolResultOf } from "./helpers.ts";
import { canaryHomeDir, handTo, type Identity, runAs } from "./identities.ts";

/**
 * A canary HOME owned by `identity` with a repository `repo` in it (`a.txt` = "main\n", one commit
 * on main, a committer in ~/.gitconfig), git as that identity, and the file a planted command would make (`pwned`).
 */
export function canaryRepository(identity: Identity, prefix: string) {
  const home = canaryHomeDir(prefix);
  const repo = join(home, "repo");
  mkdirSync(repo);
  writeFileSync(join(repo, "a.txt"), "main\n");
  // A committer for git inside the sandbox too (the agent's own commits), where only HOME is seen.
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n");
  handTo(identity, home);
  const git = gitAs(identity, home);
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "a.txt");
  git(repo, "commit", "-q", "-m", "first");
  return { home, repo, git, pwned: join(home, "PWNED") };
}

/** `git` as `identity` (root itself, nobody through runAs) with HOME and a committer set, in `cwd`. */
export function gitAs(identity: Identity, home: string): (cwd: string, ...args: string[]) => string {
  return (cwd, ...args) =>
    execFileSync(
      runAs(identity)[0] ?? "git",
      [...runAs(identity).slice(1), ...(identity === "root" ? [] : ["git"]), "-c", "safe.directory=*", ...args],
      {
        cwd,
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
}

/** A shell line writing an executable hook at `file` that touches `pwned`. */
export function plantedHook(file: string, pwned: string): string {
  return `printf '#!/bin/sh\\ntouch ${pwned}\\n' > ${file} && chmod +x ${file}`;
}

/**
 * The attack in `project`: a sandboxed command (`-y`, as `identity`) plants `hooks/pre-commit`;
 * the plant must fail, and the user's next commit must run nothing. `hooks` is relative to `project`.
 */
export async function assertHookNotPlanted(
  serve: (script: ScriptStep[]) => Promise<FakeLLM>,
  where: { identity: Identity; home: string; project: string; hooks: string },
): Promise<void> {
  const { identity, home, project, hooks } = where;
  const pwned = join(home, "PWNED");
  const plant = `mkdir -p ${hooks}; ${plantedHook(`${hooks}/pre-commit`, pwned)}; echo "planted: $?"`;
  assert.match(await runAgentCommand(serve, where, plant), /planted: [1-9]/);
  gitAs(identity, home)(project, "commit", "-q", "--allow-empty", "-m", "mine");
  assert.equal(existsSync(pwned), false, "a planted hook ran outside the sandbox");
  assert.equal(existsSync(join(project, hooks, "pre-commit")), false);
}

/** The model runs `command` with bash in `project` (`-y`, as `identity`, HOME `home`); returns the tool's result. */
export async function runAgentCommand(
  serve: (script: ScriptStep[]) => Promise<FakeLLM>,
  where: { identity: Identity; home: string; project: string },
  command: string,
): Promise<string> {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "plant", name: "bash", arguments: { command } }] } },
    { reply: { text: "planted" } },
  ]);
  const env = cleanEnv({ HOME: where.home, HARNESS_HOME: join(where.home, ".harness") });
  const result = await runCli(["-y", ...fakeFlags(fake), "-p", "set up hooks"], {
    cwd: where.project,
    env,
    wrap: runAs(where.identity),
  });
  assert.equal(result.code, 0, result.stderr);
  return toolResultOf(fake, 1, "plant");
}
