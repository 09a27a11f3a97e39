// Which language servers apply to a workspace, for whether the lsp tool is offered at all: a
// server whose program is installed and whose files the workspace has. Both are looked at cheaply
// at start-up: the programs first (a stat per PATH entry; none found, nothing more is done), then a
// bounded look at the workspace's top folders for the servers' file extensions.
import path from "node:path";
import { findProgram } from "./find-program.ts";
import type { LanguageServerSpec } from "./server-specs.ts";
import { walkWorkspace } from "./workspace-walk.ts";

/** How deep, and over how many entries, the workspace is looked at for files a server serves. */
const MAX_DEPTH = 3;
const MAX_ENTRIES = 2000;

/** The names of the servers in `specs` that can run here and have files to serve. */
export function serversHere(
  specs: readonly LanguageServerSpec[],
  root: string,
  env: Record<string, string | undefined>,
  isProjectTrusted: boolean,
): string[] {
  const installed = specs.filter((spec) => findProgram(spec.command, root, env, isProjectTrusted));
  if (installed.length === 0) return [];
  const extensions = extensionsIn(root);
  return installed
    .filter((spec) =>
      Object.keys(spec.extensionToLanguage).some((extension) => extensions.has(extension.toLowerCase())),
    )
    .map((spec) => spec.name);
}

/** The file extensions (with their dot, lower case) found in the top `MAX_DEPTH` levels, at most `MAX_ENTRIES` entries seen. */
function extensionsIn(root: string): Set<string> {
  const found = new Set<string>();
  walkWorkspace(root, { maxDepth: MAX_DEPTH, maxEntries: MAX_ENTRIES }, (_dir, name) =>
    found.add(path.extname(name).toLowerCase()),
  );
  return found;
}
