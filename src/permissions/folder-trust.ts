// Folder trust: a project's settings that run code or widen permissions (hooks and allow rules
// in .harness/settings.json, MCP servers in .mcp.json) take effect only in a folder the user
// trusts. A cloned repository must not run anything, or reach a key, just by being opened.
//
// Trusted means one of: `--trust` for this run; the folder named under `trustedFolders` in the
// user's own $HARNESS_HOME/settings.json; or a "yes" to the question a chat asks, recorded in
// $HARNESS_HOME/trusted-folders.json with a hash of every project settings file. When a file
// changes (or one is added or removed), the record no longer holds: a chat asks again and shows
// the diff; a headless run reports it and ignores the settings. What only narrows permissions
// (deny and ask rules, a tighter sandbox, env.strip) applies without trust. A project's skills (SKILL.md
// files: instructions the model would follow) are reviewed and recorded the same way.
//
// Trust by name has no hash, so it covers only settings files and skills no sandboxed command
// can have written: not one reached through a symlink (the sandbox protects the link, not where
// it points; for a skill, one whose real path lies in no protected folder), nor one a command
// created in a subfolder, where no mount can reach (sandbox/made-by-commands.ts; `.agents` is
// protected like `.harness` and `.claude`, so a skill planted in `.agents/skills` is noticed too).
// Those are asked about, or reported, as if the folder were not named; once trusted with their
// hash they are covered like any other.
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { readMadeByCommands } from "../sandbox/made-by-commands.ts";
import { unifiedDiff } from "../shared/diff.ts";
import { countOf } from "../shared/helpers.ts";
import { makePrivateFolder } from "../shared/private-files.ts";
import { realOrSame } from "../shared/real-path.ts";
import { writeWhole } from "../shared/write-whole.ts";
import {
  type ProjectFile,
  type ProjectSkill,
  printable,
  reviewProjectSettings,
  type TrustReview,
} from "./folder-trust-review.ts";
import { protectedPart } from "./protected-paths.ts";

const RECORD_FILE = "trusted-folders.json";

/** The outcome for one run. */
export interface FolderTrust {
  isTrusted: boolean;
  /** The one line for stderr when project settings are ignored. */
  report?: string;
}

export interface TrustOptions {
  cwd: string;
  harnessHome: string;
  home: string;
  /** `--trust` was given. */
  flag: boolean;
  /** `trustedFolders` from the user's own settings.json. */
  trustedFolders: string[];
  /** Asks the person (chat); absent when nobody can answer. Resolves true for yes. */
  ask?: (review: TrustReview) => Promise<boolean>;
  /** The project's skills (their SKILL.md files), reviewed with the settings. */
  skills?: ProjectSkill[];
}

/** Decides whether this run may use the folder's project settings, asking and recording when it can. */
export async function settleFolderTrust(options: TrustOptions): Promise<FolderTrust> {
  const review = reviewProjectSettings(options.cwd, options.harnessHome, options.skills, options.home);
  if (review.wouldRun.length === 0) return { isTrusted: false };
  if (options.flag) return { isTrusted: true };
  if (isNamedByUser(review.folder, options.trustedFolders, options.home)) {
    const notCovered = notCoveredByName(review, options.harnessHome);
    if (notCovered.length === 0) return { isTrusted: true };
    review.notCoveredByName = notCovered;
  }
  const recorded = readRecords(options.harnessHome)[review.folder];
  if (recorded && sameFiles(recorded.files, review.files)) return { isTrusted: true };
  if (recorded) review.changed = changeSince(recorded.files, review.files);
  if (options.ask && (await options.ask(review))) {
    recordTrust(review, options.harnessHome);
    return { isTrusted: true };
  }
  return { isTrusted: false, report: reportLine(review, Boolean(options.ask)) };
}

/** The settings files a command may have written, which a trust without hash must not cover: why, for each. */
function notCoveredByName(review: TrustReview, harnessHome: string): string[] {
  const made = readMadeByCommands(harnessHome);
  const isSkill = (file: ProjectFile) => path.basename(file.path) === "SKILL.md";
  return review.files.flatMap((file) => {
    const shown = printable(file.shown, "");
    const real = realOrSame(file.path);
    const isUnder = (entry: string) => [file.path, real].some((at) => at === entry || at.startsWith(`${entry}/`));
    if (made.entries.some(isUnder)) return [`${shown} was created while harness ran commands here`];
    if (made.unchecked.some(isUnder))
      return [`${shown} is in a folder too large to check for what commands created there`];
    if (!isSkill(file) && throughSymlink(file.path)) return [`${shown} is reached through a symlink`];
    // A skill's path is its real one: outside every protected folder (a linked `.agents` or skill
    // folder pointing elsewhere in the repository), the sandbox never kept commands from writing it.
    if (isSkill(file) && protectedPart(file.path) === undefined)
      return [`${shown} is reached through a symlink to a folder commands may write`];
    return [];
  });
}

/** Whether a settings file, or the `.harness` or `.claude` folder holding it, is a symlink a command could point elsewhere. */
function throughSymlink(file: string): boolean {
  const parts = [".harness", ".claude"].includes(path.basename(path.dirname(file)))
    ? [file, path.dirname(file)]
    : [file];
  return parts.some((part) => {
    try {
      return lstatSync(part).isSymbolicLink();
    } catch {
      return false;
    }
  });
}

/** Whether the user's `trustedFolders` names this folder (`~/src/app`), or a folder above it with `/**`. */
export function isNamedByUser(folder: string, trustedFolders: string[], home: string): boolean {
  return trustedFolders.some((entry) => {
    const isTree = entry.endsWith("/**");
    const written = isTree ? entry.slice(0, -3) : entry;
    const base = realOrSame(written === "~" || written.startsWith("~/") ? path.join(home, written.slice(1)) : written);
    return folder === base || (isTree && folder.startsWith(`${base.replace(/\/$/, "")}/`));
  });
}

interface RecordedFile {
  path: string;
  sha256: string;
  content: string;
}

interface TrustRecord {
  trustedAt: string;
  files: RecordedFile[];
}

function recordPath(harnessHome: string): string {
  return path.join(harnessHome, RECORD_FILE);
}

function readRecords(harnessHome: string): Record<string, TrustRecord> {
  try {
    const json = JSON.parse(readFileSync(recordPath(harnessHome), "utf8"));
    return typeof json?.folders === "object" && json.folders !== null ? json.folders : {};
  } catch {
    return {}; // none yet, or broken: nothing is trusted, so the question comes again
  }
}

/** Records a yes: the folder, with each file's hash and contents (to show what changed later). */
export function recordTrust(review: TrustReview, harnessHome: string): void {
  const folders = readRecords(harnessHome);
  folders[review.folder] = {
    trustedAt: new Date().toISOString(),
    files: review.files.map(({ path, sha256, content }) => ({ path, sha256, content })),
  };
  makePrivateFolder(harnessHome);
  // Whole or not at all, so a crash never leaves half a record.
  writeWhole(recordPath(harnessHome), `${JSON.stringify({ version: 1, folders }, null, 2)}\n`);
}

function sameFiles(recorded: RecordedFile[], current: ProjectFile[]): boolean {
  return (
    recorded.length === current.length &&
    current.every((file) => recorded.some((old) => old.path === file.path && old.sha256 === file.sha256))
  );
}

function changeSince(recorded: RecordedFile[], current: ProjectFile[]): { diff: string; files: string[] } {
  const diffs: string[] = [];
  const files: string[] = [];
  for (const file of current) {
    const old = recorded.find((candidate) => candidate.path === file.path);
    if (old?.sha256 === file.sha256) continue;
    files.push(printable(file.shown, ""));
    diffs.push(unifiedDiff(old?.content, file.content, file.shown));
  }
  for (const old of recorded.filter((candidate) => !current.some((file) => file.path === candidate.path))) {
    files.push(printable(old.path, ""));
    diffs.push(unifiedDiff(old.content, "", old.path));
  }
  return { diff: printable(diffs.join("")), files };
}

/** The one line a run prints when it ignores project settings. */
function reportLine(review: TrustReview, wasAsked: boolean): string {
  const { hooks, servers, allowRules, skills } = review.counts;
  const what = [
    plural(hooks, "hook"),
    plural(servers, "MCP server"),
    plural(allowRules, "allow rule"),
    plural(skills, "skill"),
  ]
    .filter(Boolean)
    .join(", ");
  const files = review.wouldRun.map((entry) => entry.file).join(", ");
  const why = review.changed
    ? `changed since you trusted this folder (${review.changed.files.join(", ")})`
    : review.notCoveredByName
      ? `are not covered by trustedFolders (${review.notCoveredByName.join("; ")}: a command could have written it)`
      : "are not trusted";
  const how = wasAsked
    ? ""
    : review.changed
      ? "; run harness here to review the change, or pass --trust"
      : "; run harness here to review them, or pass --trust";
  return `this folder's project settings ${why}: ignoring ${what || "them"} from ${files}${how}`;
}

function plural(count: number, noun: string): string {
  return count === 0 ? "" : countOf(count, noun);
}
