// Which served files a command changed. The bash tool does not report what a command changed
// (ToolOutput.changedFiles: that takes a scan of the workspace per command), so the after-edit hook
// scans itself, and only where a server applies: before a command it notes the size, modification
// time and inode of each file a server serves (a bounded walk, no file read), and compares after.
import { statSync } from "node:fs";
import path from "node:path";
import { walkWorkspace } from "./workspace-walk.ts";

/**
 * At most this many of a command's changed files are checked: a command that rewrites many (a
 * formatter, a codegen step, a checkout) would otherwise hold the step and flood the result; the
 * rest are counted. Their checks share one edit's wait bound.
 */
export const MAX_COMMAND_FILES = 3;
/** How deep and over how many entries the workspace is looked at (a few ms for a few thousand entries). */
const MAX_DEPTH = 8;
const MAX_ENTRIES = 5_000;

/** Each served file's stamp (`mtime ns:size:inode`), by absolute path. */
export type FileStamps = Map<string, string>;

export function stampsOf(root: string, isServed: (file: string) => boolean): FileStamps {
  const stamps: FileStamps = new Map();
  walkWorkspace(root, { maxDepth: MAX_DEPTH, maxEntries: MAX_ENTRIES }, (dir, name) => {
    const file = path.join(dir, name);
    if (!isServed(file)) return;
    try {
      const stat = statSync(file, { bigint: true });
      stamps.set(file, `${stat.mtimeNs}:${stat.size}:${stat.ino}`);
    } catch {
      // Gone between the listing and the stat: nothing to compare.
    }
  });
  return stamps;
}

/** The files new or different in `after`, in path order. */
export function changedBetween(before: FileStamps, after: FileStamps): string[] {
  return [...after.entries()]
    .filter(([file, stamp]) => before.get(file) !== stamp)
    .map(([file]) => file)
    .sort();
}
