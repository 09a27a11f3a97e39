// Placeholders (protected-entries.ts) are removed when harness exits, but a harness killed with
// SIGKILL cannot remove them, and an empty `.git` or `.harness`, or a `{}` `.mcp.json`, would stay
// in the user's folder for good (an empty `.git` even breaks git there). So each process writes
// down the placeholders it makes, in $HARNESS_HOME/placeholders/<pid>.json with who it is
// (shared/process-owner.ts), and the next harness to set up a sandbox removes those whose owner is
// gone, if they are still as made. The record is written before the placeholder is made.
import { readdirSync, readFileSync, rmdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { makePrivateFolder } from "../shared/private-files.ts";
import { currentOwner, isOwnerAlive, parseOwner } from "../shared/process-owner.ts";
import { writeWhole } from "../shared/write-whole.ts";

/** What stands in for a missing entry: an empty folder, or a file with this harmless content. */
export type Placeholder = { kind: "folder" } | { kind: "file"; content: string };

/** Records of other processes read at most, so a folder full of them costs bounded time. */
const MAX_RECORDS_SWEPT = 100;

const owner = JSON.stringify(currentOwner());

/** Writes this process's record: every placeholder it has made (full path → what was made). */
export function writeRecord(recordsDir: string, placeholders: Map<string, Placeholder>): void {
  try {
    makePrivateFolder(recordsDir);
    const file = recordFile(recordsDir, process.pid);
    const text = `{"owner":${owner},"placeholders":${JSON.stringify([...placeholders])}}\n`;
    writeWhole(file, text);
  } catch {
    // no record: only a SIGKILL now would leave the placeholders behind, as before records
  }
}

/** Removes this process's record (its placeholders are gone). */
export function removeRecord(recordsDir: string): void {
  try {
    unlinkSync(recordFile(recordsDir, process.pid));
  } catch {
    // none written
  }
}

/** Removes the placeholders of processes that are gone, if still as made, and their records. */
export function sweepStaleRecords(recordsDir: string): void {
  let names: string[];
  try {
    names = readdirSync(recordsDir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return; // none yet
  }
  for (const name of names.slice(0, MAX_RECORDS_SWEPT)) {
    const file = path.join(recordsDir, name);
    const record = readRecord(file);
    if (!record || record.owner.pid === process.pid || isOwnerAlive(record.owner)) continue;
    for (const [entry, placeholder] of record.placeholders.reverse()) removeIfAsMade(entry, placeholder);
    try {
      unlinkSync(file);
    } catch {
      // another harness swept it first
    }
  }
}

/** Removes `entry` if it is still the placeholder made: an empty folder, or a file with just that content. */
export function removeIfAsMade(entry: string, placeholder: Placeholder): void {
  try {
    if (placeholder.kind === "folder")
      rmdirSync(entry); // fails, rightly, when no longer empty
    else if (readFileSync(entry, "utf8") === placeholder.content) unlinkSync(entry);
  } catch {
    // changed or gone: leave it
  }
}

function recordFile(recordsDir: string, pid: number): string {
  return path.join(recordsDir, `${pid}.json`);
}

function readRecord(
  file: string,
): { owner: NonNullable<ReturnType<typeof parseOwner>>; placeholders: Array<[string, Placeholder]> } | undefined {
  try {
    const json = JSON.parse(readFileSync(file, "utf8")) as { owner?: unknown; placeholders?: unknown };
    const recordOwner = parseOwner(JSON.stringify(json.owner));
    if (!recordOwner || !Array.isArray(json.placeholders)) return undefined;
    const placeholders = json.placeholders.filter(
      (item): item is [string, Placeholder] =>
        Array.isArray(item) && typeof item[0] === "string" && path.isAbsolute(item[0]) && isPlaceholder(item[1]),
    );
    return { owner: recordOwner, placeholders };
  } catch {
    return undefined;
  }
}

function isPlaceholder(value: unknown): value is Placeholder {
  const candidate = value as Placeholder | undefined;
  return (
    candidate?.kind === "folder" ||
    (candidate?.kind === "file" && typeof (candidate as { content?: unknown }).content === "string")
  );
}
