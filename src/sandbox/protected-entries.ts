// Keeps a sandboxed command from planting or changing what runs code outside the sandbox later
// (the policy's protectedNames: `.harness`, `.claude`, `.agents`, `.mcp.json`, `.git`), whether it exists yet or not.
//
// Mechanism (mounts only, no seccomp), and its limits:
// - Every protected entry already in the workspace, at any depth, is a read-only bind. A `.git`
//   folder instead stays writable (git add and commit work) but is bound onto itself, so it is a
//   mount point that cannot be renamed, removed or replaced (`mv .git .git_old` fails with EBUSY),
//   and the parts of it that make git run code or read its config elsewhere are read-only:
//   `config`, `hooks`, `modules` (submodules' own config and hooks), `config.worktree`, `commondir`,
//   and in `worktrees/<id>` what redirects a linked worktree's git (worktree-metadata-mounts.ts).
// - A protected name missing at the workspace root, and a missing `.git/hooks` or
//   `.git/commondir`, gets a harmless placeholder on the host (an empty folder; `{}` for
//   `.mcp.json`; `.` for commondir, which git reads as "this folder"), mounted read-only, so it
//   cannot be created either. Mount points must exist on the host, so the placeholders are real
//   files there for the rest of the session; they are removed when harness exits, if unchanged,
//   or by the next harness when this one was killed (placeholder-records.ts).
// - NOT covered: a protected name created in a NEW subfolder (`mkdir sub && git init sub`):
//   mounts cannot name a path that does not exist yet. Harness reads `.harness` and `.mcp.json`
//   only from folders the user trusts (folder trust asks again when they change); a new
//   `sub/.git` matters only if you run git inside `sub`. The scan skips node_modules. What such
//   a command made is noticed, though: a scan that finds an entry the first one did not is
//   written down (made-by-commands.ts), and folder trust by name does not cover it.
// - The scan has no count bound a command could fill with empty folders to hide what lies past
//   it, only a time bound (SCAN_TIME_LIMIT_MS), and a scan out of time fails closed: that
//   command sees the whole workspace read-only, and the workspace is written down as unchecked,
//   so trust by name covers nothing in it. An entry an earlier scan found stays protected even
//   if a later one misses it.
import { lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gitHooksPath } from "../shared/git-hooks-path.ts";
import { isInside } from "../shared/is-inside.ts";
import { kindOf } from "./file-kind.ts";
import { noteMadeByCommands, noteUncheckedByCommands } from "./made-by-commands.ts";
import {
  type Placeholder,
  removeIfAsMade,
  removeRecord,
  sweepStaleRecords,
  writeRecord,
} from "./placeholder-records.ts";
import { worktreeMetadataMounts } from "./worktree-metadata-mounts.ts";

/**
 * How long one scan for protected entries may take. Past it the scan fails closed: the command
 * sees the workspace read-only, and trust by name covers nothing in it (noteNewEntries).
 * 100,000 folders took ~2 s on a loaded 2-core machine; a tree that needs more than this is too
 * large to guard per command, and gets the safe answer instead of a partial one.
 */
const SCAN_TIME_LIMIT_MS = 15_000;
/** Folders opened between two looks at the clock. */
const CLOCK_CHECK_EVERY = 256;
/** Folders scanned past: installed packages, not the project's own settings. */
const UNSCANNED_FOLDERS = new Set(["node_modules"]);
/** Parts of a `.git` folder that make git run commands or take its config from elsewhere. */
export const GIT_CODE_PARTS = ["config", "hooks", "modules", "config.worktree", "commondir"];

/** Placeholders for names missing at the workspace root. */
const ROOT_PLACEHOLDERS: Record<string, Placeholder> = {
  ".harness": { kind: "folder" },
  ".claude": { kind: "folder" },
  ".agents": { kind: "folder" },
  ".mcp.json": { kind: "file", content: "{}\n" },
  ".git": { kind: "folder" },
};
/** Placeholders for parts missing inside a `.git` folder. */
const GIT_PLACEHOLDERS: Record<string, Placeholder> = {
  hooks: { kind: "folder" },
  commondir: { kind: "file", content: ".\n" },
};

/**
 * The bwrap arguments that protect `names` in `workspace`; creates placeholders where needed.
 * The same file system gives the same arguments, in the same order, whether a placeholder is
 * made now or was made by an earlier call: the command helper (tools/commands/command-host.ts) keeps its
 * sandbox for as long as they stay the same.
 */
export function protectedMounts(workspace: string, names: string[], recordsDir?: string): string[] {
  if (recordsDir && !sweptDirs.has(recordsDir)) {
    sweptDirs.add(recordsDir);
    sweepStaleRecords(recordsDir); // before looking: a stale placeholder is no user's entry
  }
  records = recordsDir ?? records;
  const args: string[] = [];
  for (const name of names) {
    const placeholder = ROOT_PLACEHOLDERS[name];
    if (placeholder && kindOf(path.join(workspace, name)) === "missing")
      createPlaceholder(path.join(workspace, name), placeholder);
  }
  const scan = scanProtectedEntries(workspace, names);
  noteNewEntries(workspace, names, scan);
  // Fail closed: what the scan did not reach may hold a `.git` or `.harness` no mount protects.
  if (!scan.complete) return readOnlyWorkspace(workspace);
  // Sorted: a folder's entry comes before those inside it, and readdir's order does not matter.
  const entries = [...new Set([...scan.entries, ...stillThere(firstScans.get(workspace)?.entries)])].sort();
  for (const entry of entries) {
    // A placeholder is wholly read-only (even a `.git` one: `git init` must fail).
    const isRealGitFolder = path.basename(entry) === ".git" && !placeholders.has(entry) && kindOf(entry) === "folder";
    if (isRealGitFolder) args.push(...gitFolderMounts(entry, workspace));
    else args.push("--ro-bind", entry, entry);
    // A linked worktree's `.git` is a file naming its repository, whose config may move the hooks.
    if (path.basename(entry) === ".git" && kindOf(entry) === "file") args.push(...hooksPathMounts(entry, workspace));
  }
  return args;
}

/** Entries an earlier scan found that still exist: protected even if a later scan missed them. */
function stillThere(entries: Set<string> | undefined): string[] {
  return [...(entries ?? [])].filter(
    (entry) => lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === false,
  );
}

/** The workspace read-only, said once on stderr: the mounts for a scan that could not finish. */
function readOnlyWorkspace(workspace: string): string[] {
  if (!warnedReadOnly.has(workspace)) {
    warnedReadOnly.add(workspace);
    process.stderr.write(
      `harness: ${workspace} has more folders than can be checked for .git, .harness and .mcp.json in ${SCAN_TIME_LIMIT_MS / 1000} s; commands see it read-only (work in a smaller folder, or run with --sandbox off at your own risk)\n`,
    );
  }
  return ["--ro-bind", workspace, workspace];
}
const warnedReadOnly = new Set<string>();

function gitFolderMounts(gitFolder: string, workspace: string): string[] {
  const args = ["--bind", gitFolder, gitFolder];
  for (const part of GIT_CODE_PARTS) {
    const entry = path.join(gitFolder, part);
    const placeholder = GIT_PLACEHOLDERS[part];
    if (kindOf(entry) !== "missing" || (placeholder && createPlaceholder(entry, placeholder)))
      args.push("--ro-bind", entry, entry);
  }
  return [...args, ...worktreeMetadataMounts(gitFolder), ...hooksPathMounts(gitFolder, workspace)];
}

/**
 * The folder `core.hooksPath` names (husky's `.husky/_`), when it is in the workspace: read-only
 * as `.git/hooks` is, a placeholder folder (and placeholders for its missing parents) when it
 * does not exist yet, so a command can neither plant a hook there nor create the folder. Outside
 * the workspace commands cannot write anyway.
 */
function hooksPathMounts(gitFolder: string, workspace: string): string[] {
  const hooks = gitHooksPath(gitFolder);
  if (!hooks || !isInside(hooks, workspace) || hooks === workspace || isInside(hooks, gitFolder)) return [];
  const missing: string[] = [];
  for (let folder = hooks; folder !== workspace && kindOf(folder) === "missing"; folder = path.dirname(folder))
    missing.unshift(folder);
  for (const folder of missing) if (!createPlaceholder(folder, { kind: "folder" })) return [];
  // The topmost placeholder covers the ones below it; an existing folder is covered as it is.
  const covered = missing[0] ?? hooks;
  return ["--ro-bind", covered, covered];
}

/** Existing protected entries at any depth (scanProtectedEntries), for a caller that has no way to fail closed. */
export function findProtectedEntries(workspace: string, names: string[]): string[] {
  return scanProtectedEntries(workspace, names).entries;
}

/** What one scan found, and whether it looked everywhere (false: it ran out of time). */
export interface ProtectedScan {
  entries: string[];
  complete: boolean;
}

/**
 * Existing protected entries at any depth, breadth first; symlinks are not followed. Bounded by
 * time, not by a count of folders: a command can make any number of folders, so a count is a
 * bound it can fill to hide what lies past it (20,000 empty folders did). A scan out of time says
 * so, and its callers fail closed (protectedMounts, noteNewEntries).
 */
export function scanProtectedEntries(workspace: string, names: string[], limitMs = SCAN_TIME_LIMIT_MS): ProtectedScan {
  const found: string[] = [];
  const queue = [workspace];
  const deadline = performance.now() + limitMs;
  for (let next = 0; next < queue.length; next++) {
    if (next % CLOCK_CHECK_EVERY === 0 && performance.now() > deadline) return { entries: found, complete: false };
    let entries;
    try {
      entries = readdirSync(queue[next], { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(queue[next], entry.name);
      if (names.includes(entry.name) && !entry.isSymbolicLink()) found.push(full);
      else if (entry.isDirectory() && !UNSCANNED_FOLDERS.has(entry.name)) queue.push(full);
    }
  }
  return { entries: found, complete: true };
}

/** Per workspace, the names protected and the entries its first scan found; a later entry was made meanwhile. */
const firstScans = new Map<string, { names: string[]; entries: Set<string> }>();

/**
 * Writes down the entries that are new since the workspace's first scan (by a command, mostly).
 * A scan that could not finish writes down the workspace itself: what it did not see may be new.
 */
function noteNewEntries(workspace: string, names: string[], scan: ProtectedScan): void {
  const first = firstScans.get(workspace);
  if (!first) {
    if (firstScans.size === 0) process.once("exit", scanAgainAtExit);
    firstScans.set(workspace, { names, entries: new Set(scan.entries) });
  }
  if (!scan.complete && records) noteUncheckedByCommands(path.dirname(records), workspace);
  if (!first) return;
  const made = scan.entries.filter((entry) => !first.entries.has(entry) && !placeholders.has(entry));
  if (made.length === 0 || !records) return;
  noteMadeByCommands(path.dirname(records), made); // records is $HARNESS_HOME/placeholders
  for (const entry of made) first.entries.add(entry);
}

/** A last look when harness exits: background commands may have run after the last scan. */
function scanAgainAtExit(): void {
  for (const [workspace, { names }] of firstScans)
    noteNewEntries(workspace, names, scanProtectedEntries(workspace, names));
}

/** Placeholders this process made, removed at exit if still as made. */
const placeholders = new Map<string, Placeholder>();
/** Where this process writes down its placeholders (placeholder-records.ts); none: not written down. */
let records: string | undefined;
/** Record folders already swept of stale placeholders by this process. */
const sweptDirs = new Set<string>();

function createPlaceholder(entry: string, placeholder: Placeholder): boolean {
  if (placeholders.size === 0) process.once("exit", removePlaceholders);
  placeholders.set(entry, placeholder);
  if (records) writeRecord(records, placeholders); // first, so a SIGKILL right after still leaves it known
  try {
    if (placeholder.kind === "folder") mkdirSync(entry);
    else writeFileSync(entry, placeholder.content, { flag: "wx" });
  } catch {
    // made meanwhile by someone else, or the folder is not writable: nothing to protect against
    placeholders.delete(entry);
    if (records) writeRecord(records, placeholders);
    return false;
  }
  return true;
}

/** Whether `entry` (a full path) is a placeholder this process made: not the user's, so undo leaves it out. */
export function isPlaceholder(entry: string): boolean {
  return placeholders.has(entry);
}

/** Removes this process's placeholders that are still empty, deepest first. */
export function removePlaceholders(): void {
  for (const [entry, placeholder] of [...placeholders].reverse()) {
    removeIfAsMade(entry, placeholder);
    placeholders.delete(entry);
  }
  if (records) removeRecord(records);
}

/**
 * Removes this process's placeholders inside `folder` that are still empty (a subagent's worktree,
 * before its work is committed: they are no one's work); the others stay.
 */
export function removePlaceholdersUnder(folder: string): void {
  for (const [entry, placeholder] of [...placeholders].reverse())
    if (entry.startsWith(`${folder}${path.sep}`)) {
      removeIfAsMade(entry, placeholder);
      placeholders.delete(entry);
    }
  if (records) writeRecord(records, placeholders);
}
