// Which served files a command changed. The bash tool does not report what a command changed
// (ToolOutput.changedFiles: that takes a scan of the workspace per command), so the after-edit hook
// looks itself, and only where a server applies: after a command, one bounded walk of the
// workspace finds each file a server serves whose status changed (ctime) since the command
// started. ctime, not mtime: a command cannot set it back (`cp -p`, `touch -d` set mtime only),
// and a rename onto the file (`sed -i`) changes it. No file is read, and nothing is done before.
import { statSync } from "node:fs";
import path from "node:path";
import { walkWorkspace } from "./workspace-walk.ts";

/**
 * At most this many of a command's changed files are checked: a command that rewrites many (a
 * formatter, a codegen step, a checkout) would otherwise hold the step and flood the result; the
 * rest are counted. Their checks share one edit's wait bound.
 */
export const MAX_COMMAND_FILES = 3;
/** How deep and over how many entries the workspace is looked at. */
const MAX_DEPTH = 8;
const MAX_ENTRIES = 5_000;
/** A file changed this long before the command started counts too (clocks and file times differ by a little). */
const SLACK_MS = 10;

/** The served files whose status changed since `startedAt` (Date.now() when the command started), in path order. */
export function changedSince(root: string, isServed: (file: string) => boolean, startedAt: number): string[] {
  const changed: string[] = [];
  walkWorkspace(root, { maxDepth: MAX_DEPTH, maxEntries: MAX_ENTRIES }, (dir, name) => {
    const file = path.join(dir, name);
    if (!isServed(file)) return;
    try {
      if (statSync(file).ctimeMs >= startedAt - SLACK_MS) changed.push(file);
    } catch {
      // Gone between the listing and the stat: nothing to check.
    }
  });
  return changed.sort();
}
