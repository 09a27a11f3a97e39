import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import { globToRegExp, hasGlobChars } from "./glob-pattern.ts";
import { displayPath, pathError, resolvePath } from "./paths.ts";
import { walk } from "./walk.ts";

/** Most paths one call returns. */
const MAX_RESULTS = 200;
/** A walk stops after this many entries, so a pattern over a huge tree stays bounded. */
const MAX_WALKED_ENTRIES = 200_000;

export const glob = defineTool({
  name: "glob",
  description:
    "Find files by glob (e.g. src/**/*.ts, *.{js,json}), newest first. Skips .git, node_modules and gitignored files.",
  kind: "read",
  input: z.object({
    pattern: z.string().describe("Glob, relative to path"),
    path: z.string().optional().describe("Folder to search (default: .)"),
  }),
  describe: (input) => `glob ${input.pattern}${input.path ? ` in ${input.path}` : ""}`,
  // The folder, and the fixed start of the pattern too, since `../../etc/*` reaches out by itself.
  effects: (input, cwd) => {
    const base = resolvePath(cwd, input.path ?? ".");
    return { reads: [base, path.resolve(base, staticPrefix(input.pattern))] };
  },
  async run(input, { cwd, signal, unwalked }) {
    const { root, pattern } = splitStaticPrefix(
      resolvePath(cwd, input.path ?? "."),
      input.pattern.replace(/^\.\//, ""),
    );
    const wrongPath = await pathError(cwd, root, "folder");
    if (wrongPath) return wrongPath;

    const regex = globToRegExp(pattern);
    const maxDepth = pattern.includes("**") || pattern.includes("{") ? Infinity : pattern.split("/").length;
    const matches: { file: string; mtimeMs: number }[] = [];
    let walked = 0;
    for await (const entry of walk(root, cwd, signal, maxDepth, unwalked)) {
      if (++walked > MAX_WALKED_ENTRIES) break;
      if (entry.type !== "file" || !regex.test(entry.relative)) continue;
      const mtimeMs = (await stat(entry.absolute).catch(() => undefined))?.mtimeMs ?? 0;
      matches.push({ file: displayPath(cwd, entry.absolute), mtimeMs });
    }
    const stopped =
      walked > MAX_WALKED_ENTRIES ? `\n[stopped after ${MAX_WALKED_ENTRIES} entries; narrow the path]` : "";
    if (matches.length === 0)
      return { content: `No files match ${input.pattern} in ${displayPath(cwd, root)}${stopped}`, summary: "0 files" };

    matches.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : 1));
    const shown = matches.slice(0, MAX_RESULTS).map((match) => match.file);
    const more =
      matches.length > MAX_RESULTS ? `\n[showing ${MAX_RESULTS} of ${matches.length} files; narrow the pattern]` : "";
    return {
      content: shown.join("\n") + more + stopped,
      summary: matches.length === 1 ? "1 file" : `${matches.length} files`,
    };
  },
});

/** Moves the pattern's leading plain folders (and an absolute start) into the walk root, so `src/**` walks only src. */
/** The part of a glob before its first wildcard, cut back to a whole folder. */
function staticPrefix(pattern: string): string {
  const wildcard = pattern.search(/[*?[{]/);
  if (wildcard === -1) return pattern;
  const slash = pattern.lastIndexOf("/", wildcard);
  return slash === -1 ? "." : pattern.slice(0, slash) || "/";
}

function splitStaticPrefix(base: string, pattern: string): { root: string; pattern: string } {
  const segments = pattern.split("/");
  let root = path.isAbsolute(pattern) ? path.parse(pattern).root : base;
  if (path.isAbsolute(pattern)) segments.shift();
  while (segments.length > 1 && !hasGlobChars(segments[0])) root = path.join(root, segments.shift()!);
  return { root, pattern: segments.join("/") };
}
