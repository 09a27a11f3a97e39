// A throwaway git repository for the worktree tests: `a.txt` = "a\n", one commit on main, and
// git run there with a committer set (the machine's git may have none).
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers.ts";

/** `repo` (a real path, no links), `git` in it, and `worktrees`: where `harness -w` puts its worktrees. */
export function committedRepository(prefix: string) {
  const repo = join(realpathSync(tempDir(prefix)), "repo");
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
  writeFileSync(join(repo, "a.txt"), "a\n");
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  return { repo, git, worktrees: `${repo}.worktrees` };
}
