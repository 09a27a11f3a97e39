import { readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { globCovers, hasGlob } from "../shared/path-glob.ts";
import { type IgnoreFile, isIgnored, loadAncestorIgnores, loadIgnoreFile } from "./gitignore.ts";

/** Folders no file tool walks into. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

/** One entry found by `walk`. `relative` is `/`-separated from the walk's root; depth 1 is the root's own entries. */
export interface WalkEntry {
  absolute: string;
  relative: string;
  name: string;
  depth: number;
  type: "file" | "directory" | "symlink" | "other";
}

/**
 * Walks a folder breadth first, names sorted within each folder, skipping `.git`, `node_modules`
 * and what .gitignore files ignore, and never entering or listing the `unwalked` paths
 * (ToolContext.unwalked) unless it started inside one. Symlinks are reported, never followed,
 * so loops cannot trap it. Unreadable folders are skipped; it stops quietly when the signal aborts.
 */
export async function* walk(
  root: string,
  cwd: string,
  signal: AbortSignal,
  maxDepth = Infinity,
  unwalked: string[] = [],
): AsyncGenerator<WalkEntry> {
  const isOffLimits = await offLimitsBelow(root, unwalked);
  const queue: { folder: string; relative: string; depth: number; ignores: IgnoreFile[] }[] = [
    { folder: root, relative: "", depth: 1, ignores: await loadAncestorIgnores(root, cwd) },
  ];
  for (let next = queue.shift(); next && !signal.aborted; next = queue.shift()) {
    const own = await loadIgnoreFile(next.folder);
    const ignores = own ? [...next.ignores, own] : next.ignores;
    let dirents;
    try {
      dirents = await readdir(next.folder, { withFileTypes: true });
    } catch {
      continue;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of dirents) {
      const type = dirent.isSymbolicLink()
        ? "symlink"
        : dirent.isDirectory()
          ? "directory"
          : dirent.isFile()
            ? "file"
            : "other";
      if (type === "directory" && SKIPPED_FOLDERS.has(dirent.name)) continue;
      const absolute = path.join(next.folder, dirent.name);
      if (isIgnored(ignores, absolute, type === "directory")) continue;
      const relative = next.relative ? `${next.relative}/${dirent.name}` : dirent.name;
      if (isOffLimits(relative)) continue;
      yield { absolute, relative, name: dirent.name, depth: next.depth, type };
      if (type === "directory" && next.depth < maxDepth)
        queue.push({ folder: absolute, relative, depth: next.depth + 1, ignores });
    }
  }
}

/**
 * Which paths below `root` (`/`-separated, relative to it) a walk stays out of: the unwalked
 * paths and globs (a deny rule's `**\/.env`), compared where the root really is. The ones the
 * root is inside are the search's own choice, so they do not count.
 */
export async function offLimitsBelow(root: string, unwalked: string[]): Promise<(relative: string) => boolean> {
  const realRoot = await realpath(root).catch(() => path.resolve(root));
  const below = unwalked.filter((entry) => !isOffLimits(realRoot, entry));
  if (below.length === 0) return () => false;
  return (relative) => {
    const real = path.join(realRoot, relative);
    return below.some((entry) => isOffLimits(real, entry));
  };
}

/** Whether `file` (real, absolute) is an unwalked path or glob (ToolContext.unwalked), or inside one. */
export function isOffLimits(file: string, unwalked: string): boolean {
  return hasGlob(unwalked) ? globCovers(unwalked, file) : isUnder(file, unwalked);
}

/** Whether `file` is `folder` or inside it (both real and absolute). */
function isUnder(file: string, folder: string): boolean {
  return file === folder || file.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
}
