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
import { statSync } from "node:fs";
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
 * Where git run in the work tree of `gitFolder` (a `.git` folder) takes its hooks from, when
 * `core.hooksPath` moves them away from `.git/hooks`; undefined when it does not, or git is missing.
 */
export function gitHooksPath(gitFolder: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = env.HOME || os.homedir();
  const value = repositoryValue(path.join(gitFolder, "config"), env) ?? outerValue(home, env);
  if (!value) return undefined;
  const expanded = value === "~" || value.startsWith("~/") ? path.join(home, value.slice(1)) : value;
  return path.resolve(path.dirname(gitFolder), expanded);
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
