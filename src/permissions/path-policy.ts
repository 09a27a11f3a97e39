// Which files a call touches, where they really are (after `..` and symlinks), and whether
// that is inside the workspace.
import { readlink, realpath } from "node:fs/promises";
import path from "node:path";
import type { Tool } from "../core/tool.ts";

/** Symlinks followed in a chain before giving up (the kernel's own limit is 40). */
const MAX_SYMLINKS = 40;

/**
 * The paths a file tool's call touches, absolute but not yet resolved: its `path` argument
 * (a folder tool defaults to the working directory), and for `glob` the fixed start of its
 * pattern too, since `../../etc/*` reaches out by itself. Commands have none: the sandbox
 * bounds those.
 */
export function pathsOfCall(tool: Tool, input: unknown, cwd: string): string[] {
  if (tool.kind === "execute") return [];
  const args = (input ?? {}) as Record<string, unknown>;
  const base = path.resolve(cwd, typeof args.path === "string" ? args.path : ".");
  const paths = [base];
  if (tool.name === "glob" && typeof args.pattern === "string")
    paths.push(path.resolve(base, staticPrefix(args.pattern)));
  return paths;
}

/** The part of a glob before its first wildcard, cut back to a whole folder. */
function staticPrefix(pattern: string): string {
  const wildcard = pattern.search(/[*?[{]/);
  if (wildcard === -1) return pattern;
  const slash = pattern.lastIndexOf("/", wildcard);
  return slash === -1 ? "." : pattern.slice(0, slash) || "/";
}

/**
 * Where a path really is: the real path of its nearest existing ancestor with the rest
 * appended, so a symlink anywhere on the way (to the file itself or to a folder above a file
 * not yet created) is followed before the path is judged.
 */
export async function realTarget(absolute: string): Promise<string> {
  const rest: string[] = [];
  let current = path.resolve(absolute);
  for (let links = 0; ; ) {
    try {
      return path.join(await realpath(current), ...[...rest].reverse());
    } catch {
      // A dangling symlink: writing through it creates its target, so judge the target.
      const link = await readlink(current).catch(() => undefined);
      if (link !== undefined && links++ < MAX_SYMLINKS) {
        current = path.resolve(path.dirname(current), link);
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) return path.join(current, ...[...rest].reverse());
      rest.push(path.basename(current));
      current = parent;
    }
  }
}
