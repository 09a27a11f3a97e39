// A bounded walk of the workspace's folders: how harness looks for files a language server serves
// (whether to offer the lsp tool; which files a command changed) without reading a dependency tree.
import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import path from "node:path";

/** Folders never looked into: dependencies, build output, version control (any dot folder). */
const SKIPPED = new Set(["node_modules", "dist", "build", "out", "target", "vendor", "__pycache__"]);

/**
 * Calls `onFile` for each file in the top `maxDepth` levels of `root`, breadth first, stopping after
 * `maxEntries` directory entries were seen.
 */
export function walkWorkspace(
  root: string,
  bounds: { maxDepth: number; maxEntries: number },
  onFile: (dir: string, name: string) => void,
): void {
  let seen = 0;
  const queue: Array<{ dir: string; depth: number }> = [{ dir: root, depth: 0 }];
  while (queue.length > 0 && seen < bounds.maxEntries) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > bounds.maxEntries) break;
      if (entry.isFile()) onFile(dir, entry.name);
      else if (
        entry.isDirectory() &&
        depth + 1 < bounds.maxDepth &&
        !entry.name.startsWith(".") &&
        !SKIPPED.has(entry.name)
      )
        queue.push({ dir: path.join(dir, entry.name), depth: depth + 1 });
    }
  }
}
