import { stat } from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "../shared/read-regular-file.ts";
import { globToRegExp } from "./glob-pattern.ts";

/** One .gitignore file: the folder it sits in and its rules in file order. */
export interface IgnoreFile {
  folder: string;
  rules: IgnoreRule[];
}

interface IgnoreRule {
  regex: RegExp;
  isNegated: boolean;
  isDirectoryOnly: boolean;
}

/**
 * Parses .gitignore text: `#` comments, `!` negation, trailing `/` for folders only,
 * a leading or inner `/` anchoring to the file's folder, and globs with `**`.
 */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    const isNegated = line.startsWith("!");
    if (isNegated) line = line.slice(1);
    else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    const isDirectoryOnly = line.endsWith("/");
    if (isDirectoryOnly) line = line.slice(0, -1);
    if (line === "") continue;
    const isAnchored = line.includes("/");
    const glob = line.startsWith("/") ? line.slice(1) : isAnchored ? line : `**/${line}`;
    rules.push({ regex: globToRegExp(glob), isNegated, isDirectoryOnly });
  }
  return rules;
}

/**
 * Most bytes of one .gitignore read. *Decision*: 16 MiB, far past any real one (git's own are a
 * few KiB); it only bounds what a planted file can make a walk hold.
 */
const MAX_IGNORE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The .gitignore of one folder, if it has one. Read only when it is a regular file, opened
 * non-blocking: a command's `mkfifo .gitignore` once hung every glob, list_files and grep of the
 * run for good (the read waited for a writer), and a FIFO is no ignore file for git either.
 */
export async function loadIgnoreFile(folder: string): Promise<IgnoreFile | undefined> {
  const file = readRegularFile(path.join(folder, ".gitignore"), MAX_IGNORE_FILE_BYTES);
  if (!file) return undefined;
  const rules = parseGitignore(file.bytes.toString("utf8"));
  return rules.length > 0 ? { folder, rules } : undefined;
}

/**
 * The .gitignore files that apply to a walk starting at `root`: those of its ancestors up to
 * the repository root (the nearest folder holding `.git`), or up to `cwd` outside a repository.
 */
export async function loadAncestorIgnores(root: string, cwd: string): Promise<IgnoreFile[]> {
  const parents: string[] = [];
  let repositoryRoot: string | undefined;
  for (let folder = root; ; folder = path.dirname(folder)) {
    if (folder !== root) parents.push(folder);
    if (await exists(path.join(folder, ".git"))) {
      repositoryRoot = folder;
      break;
    }
    if (path.dirname(folder) === folder) break;
  }
  const upToCwd = parents.indexOf(cwd);
  const folders = repositoryRoot ? parents : upToCwd === -1 ? [] : parents.slice(0, upToCwd + 1);
  const files = await Promise.all(folders.reverse().map(loadIgnoreFile));
  return files.filter((file): file is IgnoreFile => file !== undefined);
}

/** Whether the last matching rule of the applicable .gitignore files ignores this path. */
export function isIgnored(ignores: IgnoreFile[], absolute: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const file of ignores) {
    const relative = path.relative(file.folder, absolute).split(path.sep).join("/");
    if (relative.startsWith("..")) continue;
    for (const rule of file.rules) {
      if (rule.isDirectoryOnly && !isDirectory) continue;
      if (rule.regex.test(relative)) ignored = !rule.isNegated;
    }
  }
  return ignored;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
