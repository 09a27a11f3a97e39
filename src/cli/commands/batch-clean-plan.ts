// What `harness batch clean` shares between a batch's copies (batch-clean.ts) and a worker's
// (batch-clean-worker.ts): which names count as a run folder and as results, and the removal and
// its listing, which never follow a symbolic link.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** A run id as the batch makes them (batch-run.ts), or at least one that is a single folder name. */
export const RUN_FOLDER = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;
/** What a run folder holds that is a result, not a copy: never removed. */
export const KEPT_FILES = /\.(report|traj)\.json$/;

/** A working copy: its folder and the files beside it that are its (`.base.git`, `.diff-index`). */
export interface Removal {
  path: string;
  paths: string[];
  bytes: number;
}

/** Removes (unless `isDry`) and lists each removal with its size, then what stays, then the total. */
export function sayPlan(
  removals: Removal[],
  kept: string[],
  isDry: boolean,
  where: string,
  say: (line: string) => void,
) {
  let freed = 0;
  for (const removal of removals) {
    const links = isDry ? [] : removal.paths.filter((path) => !remove(path));
    if (links.length > 0) kept.push(...links.map((path) => `${path}: became a symbolic link; left alone`));
    freed += removal.bytes;
    say(`${isDry ? "would remove" : "removed"} ${removal.path} (${formatBytes(removal.bytes)})`);
  }
  for (const line of kept) say(`kept ${line}`);
  const copies = `${removals.length} ${removals.length === 1 ? "working copy" : "working copies"}`;
  say(
    removals.length === 0
      ? `nothing to clean in ${where}`
      : isDry
        ? `would remove ${copies}, freeing ${formatBytes(freed)}; nothing was removed (--dry-run)`
        : `removed ${copies}, freed ${formatBytes(freed)}`,
  );
}

export function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Bytes of a file or folder, links counted as themselves (never followed). */
export function sizeOf(path: string): number {
  const stat = lstatOrUndefined(path);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = stat.size;
  for (const name of readdirSync(path)) total += sizeOf(join(path, name));
  return total;
}

/** Removes a copy, unless it became a symbolic link since it was judged; `rm` itself never follows one inside. */
function remove(path: string): boolean {
  if (lstatOrUndefined(path)?.isSymbolicLink()) return false;
  rmSync(path, { recursive: true, force: true });
  return true;
}

/** `512 bytes`, `1234567 bytes, 1.2 MiB`: exact first (scripts), then as a person reads it. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${bytes} bytes, ${value.toFixed(1)} ${units[unit]}`;
}
