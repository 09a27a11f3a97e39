// Snapshots of a workspace's files in a shadow git repository under $HARNESS_HOME, and putting
// a snapshot back. One shadow repository per workspace folder (objects shared by its sessions),
// one index per session (its stat cache is what makes the next snapshot cheap: only files whose
// size or time changed are read again). Works the same whether or not the folder is a git
// repository; the folder's own .git is never read or written (shadow-git.ts).
import { createHash } from "node:crypto";
import { copyFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import {
  initShadowRepo,
  runGit,
  runGitHousekeeping,
  type ShadowGit,
  ShadowGitError,
  writeCommit,
} from "./shadow-git.ts";
import { newestFile, realFolderCheck, removeOlderThan, sizeOf, touch } from "./workspace-files.ts";

/** Files larger than this are not snapshotted (in practice binaries, data sets and logs); undo leaves them as they are. */
export const MAX_SNAPSHOT_FILE_BYTES = 10 * 1024 * 1024;
/** More changed files than this at once (a home folder, no .gitignore for a dependency tree): no snapshot. */
export const MAX_SNAPSHOT_FILES = 100_000;
/** Snapshots older than this are pruned, and a workspace whose newest snapshot is older loses its shadow repository. */
export const SNAPSHOT_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;
/** The newest this many snapshots of a workspace are kept. */
export const SNAPSHOT_MAX_COUNT = 200;
/** Skipped paths a snapshot remembers (so that undo does not delete them); beyond this they are counted. */
const MAX_SKIPPED_LISTED = 1000;
/** From this many files to store at once, they are written as one pack (git's bulk check-in). */
const ONE_PACK_FROM_FILES = 500;
/** Where a snapshot's objects are kept alive: one ref per snapshot. */
const REF_PREFIX = "refs/harness/";

/** How one file differs between the workspace now and the snapshot it goes back to. */
export interface FileChange {
  path: string;
  /** `changed`: content or mode; `restored`: gone now, comes back; `deleted`: made since, goes. */
  change: "changed" | "restored" | "deleted";
}

/** What a restore did: the snapshot of the files just before it (to go forward again), and what changed. */
export interface RestoreResult {
  saved: string;
  changes: FileChange[];
  /** Paths made since the snapshot that were left in place: ignored then, or too large to snapshot. */
  kept: string[];
}

/** The snapshots of one workspace, as seen by one session. */
export class WorkspaceSnapshots {
  private readonly shadow: ShadowGit;
  private readonly root: string;
  private isReady: Promise<void> | undefined;
  private emptyBlob: string | undefined;
  /** The tree last written from this session's index, and the index file's stamp then (writeTree). */
  private lastTree: { tree: string; index: string } | undefined;
  /** warm(), while it runs or once it has. */
  private warming: Promise<void> | undefined;
  /** Ends warm()'s listing of the workspace (stopWarming). */
  private readonly warmingListing = new AbortController();

  /**
   * `workspace` must be a real path (no symlinks): it is the work tree git writes into.
   * `isLeftOut(full path)`: files that are not the user's (the sandbox's placeholders), never snapshotted.
   */
  constructor(
    harnessHome: string,
    workspace: string,
    sessionId: string,
    private readonly isLeftOut: (path: string) => boolean = () => false,
  ) {
    this.root = join(harnessHome, "snapshots");
    const gitDir = join(this.root, createHash("sha256").update(workspace).digest("hex").slice(0, 24));
    this.shadow = { gitDir, workTree: workspace, indexFile: join(gitDir, "indexes", sessionId) };
  }

  /** Snapshots the workspace now; returns the snapshot's id (a commit in the shadow repository). */
  async take(): Promise<string> {
    await this.warming;
    const { tree, skipped } = await this.update();
    const note = JSON.stringify({ skipped: skipped.slice(0, MAX_SKIPPED_LISTED), skippedCount: skipped.length });
    const commit = writeCommit(this.shadow.gitDir, tree, "harness snapshot", note);
    // A loose ref written directly (one git process fewer per snapshot): a new file named by the commit.
    makePrivateFolder(join(this.shadow.gitDir, REF_PREFIX));
    writeFileSync(join(this.shadow.gitDir, REF_PREFIX, commit), `${commit}\n`, { mode: PRIVATE_FILE_MODE });
    touch(join(this.shadow.gitDir, "last-used"));
    return commit;
  }

  /**
   * Brings this session's index and its tree up to date with the workspace in the background,
   * recording nothing, so that the next take() finds nothing changed and costs one `git
   * ls-files` (writeTree). Started when a session's first turn begins, beside the model's first
   * request, so the snapshot before the first command is not three processes on that command's
   * path. take() waits for it; a failure here is left to take() to meet again and tell (the
   * promise never rejects).
   */
  warm(): Promise<void> {
    this.warming ??= this.update(this.warmingListing.signal).then(
      () => {},
      () => {},
    );
    return this.warming;
  }

  /**
   * A turn that took no snapshot ends: warming is only a head start, so a listing still under way
   * is ended rather than waited for (git blocks on a FIFO named `.gitignore` up to its 120 s
   * bound: red team, issue 51), and the rest (writing the index, never interrupted: a killed
   * writer leaves its lock) is awaited, so no git is left writing after a one-shot exits.
   */
  async stopWarming(): Promise<void> {
    this.warmingListing.abort();
    await this.warming;
  }

  /** The index made to match the workspace; its tree, and the paths left out for their size. */
  private async update(listingSignal?: AbortSignal): Promise<{ tree: string; skipped: string[] }> {
    await this.ready();
    listingSignal?.throwIfAborted();
    const listed = await runGit(
      this.shadow,
      ["ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard"],
      listingSignal ? { signal: listingSignal } : {},
    );
    listingSignal?.throwIfAborted();
    // A path ending in "/" is a nested git repository: left to its own git, never snapshotted or restored.
    const paths = [...new Set(listed.split("\0"))].filter((path) => path !== "" && !path.endsWith("/"));
    if (paths.length > MAX_SNAPSHOT_FILES) {
      throw new ShadowGitError(
        `${paths.length} files changed since the last snapshot, more than ${MAX_SNAPSHOT_FILES}; add a .gitignore or work in a smaller folder`,
      );
    }
    const present: string[] = [];
    const gone: string[] = [];
    const skipped: string[] = [];
    const isRealFolder = realFolderCheck(this.shadow.workTree);
    for (const path of paths) {
      const full = join(this.shadow.workTree, path);
      const size = isRealFolder(dirname(path)) && !this.isLeftOut(full) ? sizeOf(full) : undefined;
      if (size === undefined)
        gone.push(path); // or left out: as good as not there
      else if (size > MAX_SNAPSHOT_FILE_BYTES) skipped.push(path);
      else present.push(path);
    }
    // Gone (or behind a symlink now) and too large leave the index; then what is there is added.
    if (gone.length + skipped.length > 0)
      await this.git(["update-index", "-z", "--force-remove", "--stdin"], [...gone, ...skipped]);
    // Many new files go into one pack rather than a file each (a first snapshot of 10,000 files:
    // 11 s → 3 s measured); few stay loose, so that small snapshots do not pile up packs before gc.
    const intoOnePack = present.length > ONE_PACK_FROM_FILES ? ["-c", "core.bigFileThreshold=1"] : [];
    if (present.length > 0)
      await this.git([...intoOnePack, "update-index", "-z", "--add", "--replace", "--stdin"], present);
    return { tree: await this.writeTree(paths.length === 0), skipped };
  }

  /** The files that would change if the workspace went back to `target` now. */
  async changesTo(target: string): Promise<FileChange[]> {
    return this.diff(await this.take(), target);
  }

  /**
   * Puts the workspace back as it was in `target`: files changed since are rewritten, files
   * deleted since come back, files made since are deleted, except paths `target`'s own
   * .gitignore rules ignore or that were too large to snapshot then (their earlier state is
   * unknown, so they stay). git writes every file, so a symlink planted in the workspace is
   * replaced, never followed.
   */
  async restore(target: string): Promise<RestoreResult> {
    await this.exists(target);
    const saved = await this.take();
    const changes = await this.diff(saved, target);
    const made = changes.filter((c) => c.change === "deleted").map((c) => c.path);
    this.lastTree = undefined; // the index is rewritten from here on
    // First without the files made since: the workspace gets target's files, .gitignore files included.
    if (made.length > 0) await this.git(["update-index", "-z", "--force-remove", "--stdin"], made);
    await this.git(["read-tree", "--reset", "-u", target]);
    // Then, under target's own ignore rules, the files made since go, unless they were ignored or skipped then.
    const kept = new Set([
      ...(await this.ignored(made)),
      ...(await this.skippedIn(target)).filter((path) => made.includes(path)),
    ]);
    const doomed = made.filter((path) => !kept.has(path));
    if (doomed.length > 0) {
      const blob = await this.emptyBlobId();
      await this.git(
        ["update-index", "-z", "--index-info"],
        doomed.map((path) => `100644 ${blob} 0\t${path}`),
      );
      await this.git(["read-tree", "--reset", "-u", target]);
    }
    return { saved, changes: changes.filter((c) => !kept.has(c.path)), kept: [...kept] };
  }

  /** The paths whose content or mode differs between two snapshots. */
  async changedPaths(from: string, to: string): Promise<string[]> {
    return (await this.diff(from, to)).map((change) => change.path);
  }

  /**
   * A snapshot that is `base` with each source's `paths` as they were in its `snapshot` (a later
   * source wins; a path absent there is absent here): what an undo puts back, and only that.
   * Built in an index of its own, so this session's index (the stat cache) is left alone.
   */
  async compose(base: string, sources: ReadonlyArray<{ snapshot: string; paths: readonly string[] }>): Promise<string> {
    const scratch: ShadowGit = { ...this.shadow, indexFile: `${this.shadow.indexFile}.compose` };
    const git = (args: string[], lines?: string[]) =>
      runGit(scratch, args, { input: lines?.map((line) => `${line}\0`).join("") });
    const skipped = new Set<string>();
    try {
      await git(["read-tree", base]);
      for (const { snapshot, paths } of sources) {
        if (paths.length === 0) continue;
        const wanted = new Set(paths);
        const entries = new Map<string, string>();
        for (const line of (await git(["ls-tree", "-r", "-z", snapshot])).split("\0")) {
          const tab = line.indexOf("\t");
          const path = line.slice(tab + 1);
          if (tab > 0 && wanted.has(path)) entries.set(path, line.slice(0, tab)); // "mode type id", as --index-info takes it
        }
        const absent = paths.filter((path) => !entries.has(path));
        if (absent.length > 0) await git(["update-index", "-z", "--force-remove", "--stdin"], absent);
        if (entries.size > 0)
          await git(
            ["update-index", "-z", "--index-info"],
            [...entries].map(([path, entry]) => `${entry}\t${path}`),
          );
        for (const path of await this.skippedIn(snapshot)) skipped.add(path);
      }
      const tree = (await git(["write-tree"])).trim();
      const note = JSON.stringify({ skipped: [...skipped].slice(0, MAX_SKIPPED_LISTED), skippedCount: skipped.size });
      const commit = writeCommit(this.shadow.gitDir, tree, "harness undo", note);
      writeFileSync(join(this.shadow.gitDir, REF_PREFIX, commit), `${commit}\n`, { mode: PRIVATE_FILE_MODE });
      return commit;
    } finally {
      rmSync(scratch.indexFile, { force: true });
    }
  }

  /** Whether `snapshot` is still there (pruned ones are not); throws ShadowGitError when not. */
  async exists(snapshot: string): Promise<void> {
    await this.ready();
    try {
      await this.git(["cat-file", "-e", `${snapshot}^{commit}`]);
    } catch {
      throw new ShadowGitError(
        `the snapshot ${snapshot.slice(0, 12)} is gone (snapshots are pruned after ${SNAPSHOT_MAX_AGE_MS / 86_400_000} days or beyond the newest ${SNAPSHOT_MAX_COUNT} of a folder)`,
      );
    }
  }

  /**
   * Drops snapshots of this workspace older than SNAPSHOT_MAX_AGE_MS or beyond the newest
   * SNAPSHOT_MAX_COUNT, other workspaces' shadow repositories unused for that long, and session
   * indexes as old; the unreferenced objects go in a `git gc`, awaited (runGitHousekeeping).
   */
  async prune(limits: { now?: number; maxCount?: number } = {}): Promise<void> {
    const { now = Date.now(), maxCount = SNAPSHOT_MAX_COUNT } = limits;
    await this.ready();
    const listed = await this.git(["for-each-ref", "--format=%(committerdate:unix) %(refname)", REF_PREFIX]);
    const refs = listed
      .split("\n")
      .filter(Boolean)
      .map((line) => ({
        time: Number(line.slice(0, line.indexOf(" "))) * 1000,
        ref: line.slice(line.indexOf(" ") + 1),
      }))
      .sort((a, b) => b.time - a.time);
    const stale = refs.filter((entry, index) => index >= maxCount || now - entry.time > SNAPSHOT_MAX_AGE_MS);
    if (stale.length > 0) {
      await this.git(["update-ref", "--stdin"], undefined, stale.map((entry) => `delete ${entry.ref}\n`).join(""));
      // Objects younger than an hour stay: a snapshot being taken right now has not got its ref yet.
      await runGitHousekeeping(this.shadow, ["gc", "--quiet", "--prune=1.hour.ago"]);
    }
    removeOlderThan(
      join(this.shadow.gitDir, "indexes"),
      now - SNAPSHOT_MAX_AGE_MS,
      (name) => join(this.shadow.gitDir, "indexes", name) !== this.shadow.indexFile,
    );
    removeOlderThan(
      this.root,
      now - SNAPSHOT_MAX_AGE_MS,
      (name) => join(this.root, name) !== this.shadow.gitDir,
      "last-used",
    );
  }

  private async diff(from: string, to: string): Promise<FileChange[]> {
    const fields = (await this.git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to])).split("\0");
    const changes: FileChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i];
      changes.push({
        path: fields[i + 1],
        change: status === "A" ? "restored" : status === "D" ? "deleted" : "changed",
      });
    }
    return changes;
  }

  /** Which of `paths` the workspace's ignore rules (as they are now) ignore, leading folders included. */
  private async ignored(paths: string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    const out = await this.git(["check-ignore", "-z", "--stdin", "--no-index"], paths, undefined, [1]);
    return out.split("\0").filter(Boolean);
  }

  /** The paths `snapshot` left out for their size. */
  private async skippedIn(snapshot: string): Promise<string[]> {
    const body = await this.git(["cat-file", "commit", snapshot]);
    try {
      const note = JSON.parse(body.slice(body.lastIndexOf("\n\n") + 2)) as { skipped?: unknown };
      return Array.isArray(note.skipped) ? note.skipped.filter((path): path is string => typeof path === "string") : [];
    } catch {
      return [];
    }
  }

  /**
   * The tree of this session's index. When the index is the one this object last wrote a tree
   * of (same file, same size and time) and nothing in the workspace differs from it
   * (`unchanged`: ls-files listed no path), that tree is the answer without a git process: the
   * after-turn snapshot of a turn whose commands changed no file costs one `git ls-files`.
   */
  private async writeTree(unchanged: boolean): Promise<string> {
    const index = indexStamp(this.shadow.indexFile);
    if (unchanged && this.lastTree && index !== undefined && index === this.lastTree.index) return this.lastTree.tree;
    const tree = (await this.git(["write-tree"])).trim();
    const written = indexStamp(this.shadow.indexFile);
    this.lastTree = written === undefined ? undefined : { tree, index: written };
    return tree;
  }

  private async emptyBlobId(): Promise<string> {
    this.emptyBlob ??= (await this.git(["hash-object", "-w", "--stdin"], undefined, "")).trim();
    return this.emptyBlob;
  }

  /** The shadow repository exists, and this session's index starts from the newest one (a warm stat cache). */
  private ready(): Promise<void> {
    this.isReady ??= (async () => {
      initShadowRepo(this.shadow.gitDir);
      writeFileSync(join(this.shadow.gitDir, "workspace"), `${this.shadow.workTree}\n`, { mode: PRIVATE_FILE_MODE });
      const indexes = join(this.shadow.gitDir, "indexes");
      makePrivateFolder(indexes);
      // A lock left by a harness killed mid-snapshot would block this session's index for good.
      rmSync(`${this.shadow.indexFile}.lock`, { force: true });
      if (sizeOf(this.shadow.indexFile) === undefined) {
        const newest = newestFile(indexes, (name) => !name.endsWith(".lock"));
        if (newest) copyFileSync(join(indexes, newest), this.shadow.indexFile);
      }
    })();
    return this.isReady;
  }

  /** `lines` are written to stdin NUL-terminated (with -z) and newline-terminated otherwise. */
  private git(args: string[], lines?: string[], input?: string, okCodes?: number[]): Promise<string> {
    const separator = args.includes("-z") ? "\0" : "\n";
    return runGit(this.shadow, args, {
      input: lines ? lines.map((line) => `${line}${separator}`).join("") : input,
      okCodes,
    });
  }
}

/** What tells one version of an index file from another: device, inode, size and change time in nanoseconds. */
function indexStamp(file: string): string | undefined {
  const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat && `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
