// Which files a call touches, where they really are (after `..` and symlinks), and whether
// that is inside the workspace.
import { readlink, realpath } from "node:fs/promises";
import path from "node:path";
import type { Tool, ToolEffects } from "../core/tool.ts";

/** Symlinks followed in a chain before giving up (the kernel's own limit is 40). */
const MAX_SYMLINKS = 40;

/** One file a call touches, absolute but not yet resolved, and how. */
export interface TouchedPath {
  path: string;
  access: "read" | "write";
}

/**
 * What a call declares it touches (Tool.effects), with its paths made absolute; undefined when
 * its tool declares nothing. Never guessed from argument or tool names: a tool that declares
 * nothing is asked about (policy.ts).
 */
export function effectsOfCall(tool: Tool, input: unknown, cwd: string): ToolEffects | undefined {
  const effects = tool.effects?.(input, cwd);
  if (!effects) return undefined;
  const absolute = (paths: string[] | undefined) => paths?.map((file) => path.resolve(cwd, file));
  return { ...effects, reads: absolute(effects.reads), writes: absolute(effects.writes) };
}

/** The files a call declares, reads first; none for a tool that declares nothing or only a command or URL. */
export function pathsOfCall(tool: Tool, input: unknown, cwd: string): TouchedPath[] {
  return touchedPaths(effectsOfCall(tool, input, cwd));
}

export function touchedPaths(effects: ToolEffects | undefined): TouchedPath[] {
  return [
    ...(effects?.reads ?? []).map((file): TouchedPath => ({ path: file, access: "read" })),
    ...(effects?.writes ?? []).map((file): TouchedPath => ({ path: file, access: "write" })),
  ];
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
