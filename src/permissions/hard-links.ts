// A file with more than one name (a hard link a command made: `ln secret.pem notes.txt`) is
// the same bytes under a name no deny rule covers. A file tool that opens a regular file with a
// link count above one therefore asks whether that inode is one of the files the deny and ask
// rules on this tool cover under their own names: those that exist and have other names are
// looked for, by walking each rule's folder once per call, and compared by device and inode. A
// walk that cannot finish within its bounds cannot say the file is not one of them, so the file
// is refused (fail closed). Hard links to a folder do not exist; a symlink is followed before
// any of this (the real path is judged). The credential paths are not walked: a sandboxed
// command cannot see them to link them, and a link made before the run is the user's own.
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import type { OpenedFile, Tool } from "../core/tool.ts";
import { globCovers, hasGlob } from "../shared/path-glob.ts";
import type { PermissionPolicy } from "./policy.ts";
import { ruleGlob, ruleNamesTool } from "./rules.ts";
import { SYSTEM_PATHS } from "./secret-paths.ts";

/** Entries one check looks at, at most, before it gives up and refuses. */
const MAX_ENTRIES = 200_000;
/** How long one check may walk before it gives up and refuses. */
const TIME_LIMIT_MS = 5_000;

/**
 * A judge for one call: why `real`, opened as `opened`, may not be used by `tool` although its
 * own name passed: it has other names, and one of them is a file a deny or ask rule covers, or that could not be ruled out. Undefined for a file with one name. The
 * guarded files with more than one name are looked for once per judge (a grep asks for many files).
 */
export function otherNameJudge(
  tool: Tool,
  policy: PermissionPolicy,
): (real: string, opened: OpenedFile) => Promise<string | undefined> {
  let guarded: Promise<GuardedLinks> | undefined;
  return async (real, opened) => {
    if (opened.nlink <= 1) return undefined;
    guarded ??= findGuardedLinks(tool, policy);
    const links = await guarded;
    if (links === "unknown")
      return `${real} has ${opened.nlink} names (hard links), and whether one of them is a file the deny or ask rules cover could not be checked in time; file tools do not use it. Nothing was done.`;
    const found = links.get(`${opened.dev}:${opened.ino}`);
    if (found)
      return `${real} is another name (a hard link) for ${found.file}, which ${found.what} covers; file tools do not use it. Nothing was done.`;
    return undefined;
  };
}

/** The guarded files that have other names, by `dev:ino`; "unknown" when the walk ran past its bounds. */
type GuardedLinks = Map<string, { file: string; what: string }> | "unknown";

async function findGuardedLinks(tool: Tool, policy: PermissionPolicy): Promise<GuardedLinks> {
  const where = { workspace: policy.workspace, home: policy.home };
  const guarded = [...policy.deny, ...policy.ask]
    .filter((rule) => rule.pattern !== undefined && ruleNamesTool(rule, tool))
    .map((rule) => ({
      glob: ruleGlob(rule.pattern as string, where),
      what: `the rule ${rule.text} in ${rule.source}`,
    }));
  const links = new Map<string, { file: string; what: string }>();
  const budget = { entries: MAX_ENTRIES, deadline: performance.now() + TIME_LIMIT_MS };
  for (const { glob, what } of guarded) {
    const queue = [literalBase(glob)];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (--budget.entries < 0 || performance.now() > budget.deadline) return "unknown";
      if (SYSTEM_PATHS.some((system) => next === system || next.startsWith(`${system}/`))) continue;
      const stats = await lstat(next).catch(() => undefined);
      if (stats?.isFile() && stats.nlink > 1 && globCovers(glob, next))
        links.set(`${stats.dev}:${stats.ino}`, { file: next, what });
      if (!stats?.isDirectory()) continue;
      for (const name of await readdir(next).catch(() => [] as string[])) queue.push(path.join(next, name));
    }
  }
  return links;
}

/** The deepest folder (or file) a glob names before its first wildcard: where its files can be. */
function literalBase(glob: string): string {
  if (!hasGlob(glob)) return glob;
  const parts = glob.split("/");
  const first = parts.findIndex(hasGlob);
  return parts.slice(0, first).join("/") || "/";
}
