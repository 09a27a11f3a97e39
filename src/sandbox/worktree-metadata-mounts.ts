// The git metadata of the linked worktrees of a `.git` folder in the workspace
// (`.git/worktrees/<id>/`), for a session in the main checkout (the reverse case, a session in
// a harness worktree, is worktree-git-mounts.ts). Red team, issue 51: a sandboxed command wrote
// them, and the user's next `git commit` in that worktree, outside the sandbox, ran a planted
// hook. What in that folder redirects git, as git 2.39 reads it (checked by hand):
// - `commondir` names the repository whose config, hooks and refs the worktree uses: pointed at
//   a repository the command made, with `core.hooksPath` in its config, it moves the hooks.
// - `config.worktree` is read as config, but only when the repository's config (read-only:
//   protected-entries.ts) sets `extensions.worktreeConfig`; without it git ignores the file.
// - `gitdir` is git's back-pointer to the worktree (`git worktree prune` and `repair` use it);
//   it runs nothing, but costs nothing to protect.
// - `config` and `hooks` in that folder are not read at all (a linked worktree takes both from
//   the common folder).
// So: `worktrees` and every `worktrees/<id>` are bound onto themselves (mount points cannot be
// renamed or removed: moving the folder aside and making a new one fails), and those three files
// are read-only where they exist. A missing `config.worktree` cannot be a mount point, and
// placeholders (protected-entries.ts) would leave files in the user's repository, so instead:
// when the repository enables `extensions.worktreeConfig` and a worktree has no
// `config.worktree`, that worktree's whole folder is read-only. Commands then cannot commit in
// that worktree (its index and HEAD are there), which is what a session in a user-made worktree
// already gets (worktree-git-mounts.ts); commits in the main checkout and `git worktree add`
// (a new `<id>`, not mounted) still work. macOS names missing files in its profile, so there the
// three files are simply denied (worktreeMetadataFiles).
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { findSystemProgram } from "../shared/system-program.ts";

/** Files of `worktrees/<id>` that redirect git or are read as its config. */
const REDIRECTING_FILES = ["commondir", "gitdir", "config.worktree"];
/** Bound on one `git config` read. */
const GIT_CONFIG_TIMEOUT_MS = 5_000;

/** bwrap arguments for the worktrees of `gitFolder`, after `gitFolder`'s own writable bind. */
export function worktreeMetadataMounts(gitFolder: string): string[] {
  const folders = adminFolders(gitFolder);
  if (folders.length === 0) return [];
  const worktrees = path.join(gitFolder, "worktrees");
  const args = ["--bind", worktrees, worktrees];
  const separateConfig = worktreeConfigEnabled(path.join(gitFolder, "config"));
  for (const admin of folders) {
    if (separateConfig && !lstatSync(path.join(admin, "config.worktree"), { throwIfNoEntry: false })) {
      args.push("--ro-bind", admin, admin);
      continue;
    }
    args.push("--bind", admin, admin);
    for (const file of REDIRECTING_FILES.map((name) => path.join(admin, name)))
      if (lstatSync(file, { throwIfNoEntry: false })) args.push("--ro-bind", file, file);
  }
  return args;
}

/** For the macOS profile: the worktrees folder and each `worktrees/<id>`, and the files in them to deny, missing or not. */
export function worktreeMetadataFiles(gitFolder: string): string[] {
  const folders = adminFolders(gitFolder);
  if (folders.length === 0) return [];
  return [
    path.join(gitFolder, "worktrees"),
    ...folders.flatMap((admin) => [admin, ...REDIRECTING_FILES.map((name) => path.join(admin, name))]),
  ];
}

/** The real folders in `gitFolder/worktrees`, sorted (same file system, same arguments); symlinks are not followed. */
function adminFolders(gitFolder: string): string[] {
  const worktrees = path.join(gitFolder, "worktrees");
  if (!lstatSync(worktrees, { throwIfNoEntry: false })?.isDirectory()) return [];
  try {
    return readdirSync(worktrees, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(worktrees, entry.name))
      .sort();
  } catch {
    return [];
  }
}

/** Per config file, whether it enables `extensions.worktreeConfig`, valid while its mtime, size and inode stay the same. */
const cache = new Map<string, { stamp: string; value: boolean }>();

/**
 * Whether git reads `config.worktree` for this repository. Read with git itself (`--includes`,
 * as git reads it); when git is missing or fails, true: the safe answer.
 */
function worktreeConfigEnabled(configFile: string): boolean {
  let stamp: string;
  try {
    const stats = statSync(configFile);
    stamp = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
  } catch {
    return true; // no config yet: a command could make one that enables it
  }
  const known = cache.get(configFile);
  if (known?.stamp === stamp) return known.value;
  const git = findSystemProgram("git", process.env.PATH ?? "");
  let value = true;
  if (git) {
    try {
      const answer = execFileSync(
        git,
        ["config", "--file", configFile, "--includes", "--bool", "--get", "extensions.worktreeConfig"],
        { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: GIT_CONFIG_TIMEOUT_MS },
      );
      value = answer.trim() !== "false";
    } catch (error) {
      value = (error as { status?: number }).status !== 1; // exit 1: not set
    }
  }
  cache.set(configFile, { stamp, value });
  return value;
}
