// Protected entries (`.harness`, `.mcp.json`, `.git`) that appeared in a workspace while harness
// ran sandboxed commands there. Mounts protect only what exists, so a command can still create
// `pkg/.harness` in a subfolder (protected-entries.ts says why). Harness cannot stop that, but it
// notices: each scan for the mounts (one per command, one at exit) is compared with the first,
// and what is new is written down here, in $HARNESS_HOME, which commands cannot write. Folder
// trust by name (`trustedFolders`, which has no hash) does not cover a settings file written
// down here: the person reviews it once (permissions/folder-trust.ts).
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeWhole } from "../core/write-whole.ts";

const FILE = "made-by-commands.json";
/** Entries kept, newest last; older ones drop out (a bound on the file, not a security limit that matters in practice). */
const MAX_ENTRIES = 1000;

/** Adds `entries` (full paths) to the list in `harnessHome`. A failure to write is silent: trust then asks as before. */
export function noteMadeByCommands(harnessHome: string, entries: string[]): void {
  const kept = readMadeByCommands(harnessHome).filter((entry) => !entries.includes(entry));
  const all = [...kept, ...entries].slice(-MAX_ENTRIES);
  try {
    mkdirSync(harnessHome, { recursive: true, mode: 0o700 });
    writeWhole(path.join(harnessHome, FILE), `${JSON.stringify({ version: 1, entries: all }, null, 1)}\n`);
  } catch {
    // $HARNESS_HOME not writable: nothing to remember with
  }
}

/** The entries written down so far (none when the file is missing or broken). */
export function readMadeByCommands(harnessHome: string): string[] {
  try {
    const json = JSON.parse(readFileSync(path.join(harnessHome, FILE), "utf8")) as { entries?: unknown };
    return Array.isArray(json.entries) ? json.entries.filter((entry) => typeof entry === "string") : [];
  } catch {
    return [];
  }
}
