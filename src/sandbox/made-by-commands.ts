// Protected entries (`.harness`, `.mcp.json`, `.git`) that appeared in a workspace while harness
// ran sandboxed commands there. Mounts protect only what exists, so a command can still create
// `pkg/.harness` in a subfolder (protected-entries.ts says why). Harness cannot stop that, but it
// notices: each scan for the mounts (one per command, one at exit) is compared with the first,
// and what is new is written down here, in $HARNESS_HOME, which commands cannot write. Folder
// trust by name (`trustedFolders`, which has no hash) does not cover a settings file written
// down here: the person reviews it once (permissions/folder-trust.ts).
import { readFileSync } from "node:fs";
import path from "node:path";
import { makePrivateFolder } from "../shared/private-files.ts";
import { writeWhole } from "../shared/write-whole.ts";

const FILE = "made-by-commands.json";
/** Entries kept, newest last; older ones drop out (a bound on the file, not a security limit that matters in practice). */
const MAX_ENTRIES = 1000;

/** What the file holds: entries commands made, and workspaces whose scan could not finish. */
export interface MadeByCommands {
  entries: string[];
  /** Workspaces too large to scan in time while commands ran there: anything in them may be a command's. */
  unchecked: string[];
}

/** Adds `entries` (full paths) to the list in `harnessHome`. A failure to write is silent: trust then asks as before. */
export function noteMadeByCommands(harnessHome: string, entries: string[]): void {
  const known = readMadeByCommands(harnessHome);
  const kept = known.entries.filter((entry) => !entries.includes(entry));
  write(harnessHome, { ...known, entries: [...kept, ...entries].slice(-MAX_ENTRIES) });
}

/** Adds a workspace whose scan ran out of time: trust by name then covers nothing in it. */
export function noteUncheckedByCommands(harnessHome: string, workspace: string): void {
  const known = readMadeByCommands(harnessHome);
  if (known.unchecked.includes(workspace)) return;
  write(harnessHome, { ...known, unchecked: [...known.unchecked, workspace].slice(-MAX_ENTRIES) });
}

/** What was written down so far (nothing when the file is missing or broken). */
export function readMadeByCommands(harnessHome: string): MadeByCommands {
  try {
    const json = JSON.parse(readFileSync(path.join(harnessHome, FILE), "utf8")) as {
      entries?: unknown;
      unchecked?: unknown;
    };
    return { entries: strings(json.entries), unchecked: strings(json.unchecked) };
  } catch {
    return { entries: [], unchecked: [] };
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry) => typeof entry === "string") : [];
}

function write(harnessHome: string, made: MadeByCommands): void {
  try {
    makePrivateFolder(harnessHome);
    writeWhole(path.join(harnessHome, FILE), `${JSON.stringify({ version: 1, ...made }, null, 1)}\n`);
  } catch {
    // $HARNESS_HOME not writable: nothing to remember with
  }
}
