// The file-system side of snapshots: sizes and folders looked at without following symlinks,
// and the housekeeping of old indexes and shadow repositories.
import { lstatSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE } from "../shared/private-files.ts";

/** A file's size, without following a symlink; undefined when there is none. */
export function sizeOf(path: string): number | undefined {
  try {
    return lstatSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * Whether a folder of the workspace (relative, "." for the top) is really there as a folder,
 * with no symlink on the way: a path behind a planted symlink counts as gone, never followed.
 */
export function realFolderCheck(workTree: string): (folder: string) => boolean {
  const known = new Map<string, boolean>([[".", true]]);
  const check = (folder: string): boolean => {
    let isReal = known.get(folder);
    if (isReal === undefined) {
      const stat = lstatSync(join(workTree, folder), { throwIfNoEntry: false });
      isReal = Boolean(stat?.isDirectory()) && check(dirname(folder));
      known.set(folder, isReal);
    }
    return isReal;
  };
  return check;
}

export function touch(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    writeFileSync(path, "", { mode: PRIVATE_FILE_MODE });
  }
}

export function newestFile(dir: string, isWanted: (name: string) => boolean): string | undefined {
  let newest: { name: string; time: number } | undefined;
  for (const name of readdirSync(dir)) {
    if (!isWanted(name)) continue;
    const time = statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (!newest || time > newest.time) newest = { name, time };
  }
  return newest?.name;
}

/** Removes entries of `dir` last changed before `before` (judged by `marker` inside them, when given). */
export function removeOlderThan(
  dir: string,
  before: number,
  isCandidate: (name: string) => boolean,
  marker?: string,
): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!isCandidate(name)) continue;
    const time = statSync(marker ? join(dir, name, marker) : join(dir, name), { throwIfNoEntry: false })?.mtimeMs;
    if (time !== undefined && time < before) rmSync(join(dir, name), { recursive: true, force: true });
  }
}
