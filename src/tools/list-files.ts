import { readlink } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { displayPath, pathError, resolvePath } from "./paths.ts";
import { type WalkEntry, walk } from "./walk.ts";

/** Most entries one listing shows. */
const MAX_ENTRIES = 500;
/** Entries past the shown ones are counted up to this many, then reported as "more than". */
const MAX_COUNTED_ENTRIES = 20_000;
/** How many folder levels a listing opens unless told otherwise. */
const DEFAULT_DEPTH = 3;
/** Deepest listing one call may ask for. */
const MAX_DEPTH = 20;

export const listFiles = defineTool({
  name: "list_files",
  description: "List a folder as a tree (folders end in /), skipping .git, node_modules and gitignored files.",
  kind: "read",
  input: z.object({
    path: z.string().optional().describe("Folder path (default: .)"),
    depth: z.number().int().min(1).max(MAX_DEPTH).optional().describe(`Levels to open (default ${DEFAULT_DEPTH})`),
  }),
  describe: (input) => `list ${input.path ?? "."}`,
  effects: (input, cwd) => ({ reads: [resolvePath(cwd, input.path ?? ".")] }),
  async run(input, { cwd, signal, unwalked }) {
    const root = resolvePath(cwd, input.path ?? ".");
    const shown = displayPath(cwd, root);
    const wrongPath = await pathError(cwd, root, "folder", "; use read_file to read it");
    if (wrongPath) return wrongPath;

    const entries: WalkEntry[] = [];
    let total = 0;
    for await (const entry of walk(root, cwd, signal, input.depth ?? DEFAULT_DEPTH, unwalked)) {
      total++;
      if (entries.length < MAX_ENTRIES) entries.push(entry);
      else if (total > MAX_COUNTED_ENTRIES) break;
    }
    if (entries.length === 0) return { content: `${shown}/ is empty.`, summary: "0 entries" };

    const children = new Map<string, WalkEntry[]>();
    for (const entry of entries) {
      const parent = entry.relative.slice(0, Math.max(0, entry.relative.lastIndexOf("/")));
      children.set(parent, [...(children.get(parent) ?? []), entry]);
    }
    const lines = [`${shown}/`];
    const addTree = async (parent: string, indent: string) => {
      const sorted = (children.get(parent) ?? []).sort(
        (a, b) => Number(b.type === "directory") - Number(a.type === "directory") || (a.name < b.name ? -1 : 1),
      );
      for (const entry of sorted) {
        lines.push(`${indent}${await entryLabel(entry)}`);
        if (entry.type === "directory") await addTree(entry.relative, `${indent}  `);
      }
    };
    await addTree("", "  ");
    if (total > entries.length) {
      const left =
        total > MAX_COUNTED_ENTRIES ? `more than ${MAX_COUNTED_ENTRIES - entries.length}` : `${total - entries.length}`;
      lines.push(`[showing ${entries.length} entries; ${left} more left out; list a subfolder or use a smaller depth]`);
    }
    return { content: lines.join("\n"), summary: `${entries.length} entries` };
  },
});

async function entryLabel(entry: WalkEntry): Promise<string> {
  const name = showControlChars(entry.name, ""); // a newline in a name must not forge a second entry
  if (entry.type === "directory") return `${name}/`;
  if (entry.type !== "symlink") return name;
  const target = await readlink(entry.absolute).catch(() => "?");
  return `${name} -> ${showControlChars(target, "")}`;
}
