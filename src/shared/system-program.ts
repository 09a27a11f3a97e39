// Where harness finds its own helper programs (bwrap, git, rg): on the PATH without relative
// entries ("", ".", `node_modules/.bin`) and without entries inside the working folder. Either
// kind lets a repository put its own `bwrap` or `git` first, which then runs outside the
// sandbox (a fake `bwrap` is handed the very command it should confine, with its environment).
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { isInside } from "./is-inside.ts";

/** Searched when the PATH holds no usable entry. */
const SYSTEM_FOLDERS = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"];

/** Where a helper no trusted folder has is "found": a folder that never exists (nobody's home on Debian). */
const NOT_FOUND = "/nonexistent";

/**
 * The absolute path of helper `name` from the trusted part of the PATH; when none has it, a
 * path that does not exist, so starting it fails as a missing program does (ENOENT).
 */
export function systemProgram(name: string): string {
  const key = `${name}\0${process.env.PATH ?? ""}\0${process.cwd()}`;
  const found = foundPrograms.get(key) ?? findSystemProgram(name);
  // Only a program found is kept (one installed later is then found too): the search was a
  // tenth of the sandbox's own time per command (issue 52's profile). Keyed on what it reads.
  if (found) foundPrograms.set(key, found);
  return found ?? path.join(NOT_FOUND, name);
}
const foundPrograms = new Map<string, string>();

/** Helper `name` from the PATH's absolute entries outside `cwd` (or the system folders, if it has none); undefined: none has it. */
export function findSystemProgram(
  name: string,
  searchPath = process.env.PATH ?? "",
  cwd = process.cwd(),
): string | undefined {
  const trusted = searchPath
    .split(path.delimiter)
    .filter((folder) => path.isAbsolute(folder) && !isInside(folder, cwd));
  return findExecutable(name, (trusted.length > 0 ? trusted : SYSTEM_FOLDERS).join(path.delimiter));
}

/** The first executable named `name` on a PATH string, if any. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}
