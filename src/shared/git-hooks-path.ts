// The folder git runs hooks from, when a repository moves it with `core.hooksPath` (husky's
// `.husky/`, a `.githooks/` folder): a command that writes `pre-commit` there has the user's next
// `git commit` run it outside the sandbox, exactly as one in `.git/hooks` would. The sandbox
// (src/sandbox/protected-entries.ts) and the file tools' check (src/permissions/protected-paths.ts)
// protect this folder as they protect `.git/hooks`.
//
// The value is read as git reads it: the repository's own config (with its `include.path`s),
// else the user's global config, else the system's. A relative path is relative to the work tree
// (where git runs hooks in a non-bare repository), `~/` is the home folder.
import { execFileSync } from "node:child_process";
import { lstatSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findSystemProgram } from "./system-program.ts";

/** Bound on one `git config` read (a slow disk; git itself answers in milliseconds). */
const GIT_CONFIG_TIMEOUT_MS = 5_000;

/** Per config file, its hooks path as last read, valid while the file's mtime and size stay the same. */
const cache = new Map<string, { stamp: string; value: string | undefined }>();
/** The global and system values, read once per process (keyed by HOME). */
const outerValues = new Map<string, string | undefined>();

/**
 * Where git run in the work tree of `gitFolder` (a `.git` folder, or a linked worktree's `.git`
 * file) takes its hooks from, when
 * `core.hooksPath` moves them away from `.git/hooks`; undefined when it does not, or git is missing.
 */
export function gitHooksPath(gitFolder: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = env.HOME || os.homedir();
  const configFile = configFileOf(gitFolder);
  const value = (configFile && repositoryValue(configFile, env)) ?? outerValue(home, env);
  if (!value) return undefined;
  const expanded = value === "~" || value.startsWith("~/") ? path.join(home, value.slice(1)) : value;
  return path.resolve(path.dirname(gitFolder), expanded);
}

/** Most of a `.git` file that is read: it holds one `gitdir:` line. */
const MAX_GIT_FILE_BYTES = 4096;

/**
 * The config file git reads for the repository of `gitEntry`: `.git/config`, or for a linked
 * worktree (a `.git` file saying `gitdir: <main>/.git/worktrees/<name>`) the main repository's,
 * which its `commondir` names (red team, issue 51: husky's `.husky/` in a worktree was writable).
 */
function configFileOf(gitEntry: string): string | undefined {
  const stats = lstatSync(gitEntry, { throwIfNoEntry: false });
  if (stats?.isDirectory()) return path.join(gitEntry, "config");
  if (!stats?.isFile() || stats.size > MAX_GIT_FILE_BYTES) return undefined;
  const line = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitEntry, "utf8"));
  if (!line) return undefined;
  const gitDir = path.resolve(path.dirname(gitEntry), line[1].trim());
  const commonFile = path.join(gitDir, "commondir");
  const common = lstatSync(commonFile, { throwIfNoEntry: false })?.isFile()
    ? path.resolve(gitDir, readFileSync(commonFile, "utf8").trim())
    : gitDir;
  return path.join(common, "config");
}

function repositoryValue(configFile: string, env: NodeJS.ProcessEnv): string | undefined {
  let stamp: string;
  try {
    const stats = statSync(configFile);
    stamp = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
  } catch {
    return undefined;
  }
  const known = cache.get(configFile);
  if (known?.stamp === stamp) return known.value;
  // --file: only this file and what it includes; git looks for no repository, so a folder that
  // another user owns is read too (no "dubious ownership" refusal).
  const value = readConfig(["--file", configFile, "--includes"], env);
  cache.set(configFile, { stamp, value });
  return value;
}

/**
 * `--includes`: git reads `[include] path = ...` of these files when it runs hooks, but `git
 * config --global` alone does not (includes are off for a named file): a `core.hooksPath` in a
 * `~/.gitconfig.local` was missed and its folder left writable (red team, issue 51).
 */
function outerValue(home: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!outerValues.has(home))
    outerValues.set(home, readConfig(["--global", "--includes"], env) ?? readConfig(["--system", "--includes"], env));
  return outerValues.get(home);
}

/** `git config <where> --get core.hooksPath`; undefined when unset or unreadable. */
function readConfig(where: string[], env: NodeJS.ProcessEnv): string | undefined {
  const git = findSystemProgram("git", env.PATH ?? "");
  if (!git) return undefined;
  try {
    const value = execFileSync(git, ["config", ...where, "--get", "core.hooksPath"], {
      encoding: "utf8",
      env,
      stdio: ["ignore", "pipe", "ignore"],
      timeout: GIT_CONFIG_TIMEOUT_MS,
    }).trim();
    return value || undefined;
  } catch {
    return undefined; // exit 1: not set
  }
}
