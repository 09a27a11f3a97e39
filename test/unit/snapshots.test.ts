// Workspace snapshots in the shadow git repository, driven for real (git, files, symlinks): what a
// restore puts back and what it leaves alone, that the user's own .git is never touched, and that
// a hostile workspace (git config, attributes, planted symlinks) cannot make the snapshot run
// anything or write outside the workspace. The CLI's undo is tested in undo-cli.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  MAX_SNAPSHOT_FILE_BYTES,
  SNAPSHOT_MAX_AGE_MS,
  WorkspaceSnapshots,
} from "../../src/snapshots/workspace-snapshots.ts";
import { tempDir } from "../support/helpers.ts";
import { git, readIfThere as read } from "../support/undo-helpers.ts";

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

test("a restore puts changed, deleted and new files back as they were, in a folder that is not a git repository", async () => {
  const workspace = tempDir("harness-ws-");
  write(workspace, { "a.txt": "a\n", "src/b.ts": "b\n", "src/deep/c.md": "c\n", "run.sh": "#!/bin/sh\n" });
  execFileSync("chmod", ["+x", join(workspace, "run.sh")]);
  const snapshots = new WorkspaceSnapshots(tempDir("harness-home-"), workspace, "s1");
  const before = await snapshots.take();

  write(workspace, { "a.txt": "changed\n", "new/made.txt": "new\n" });
  rmSync(join(workspace, "src/deep"), { recursive: true });
  execFileSync("chmod", ["-x", join(workspace, "run.sh")]);
  const expected = [
    { path: "new/made.txt", change: "deleted" },
    { path: "a.txt", change: "changed" },
    { path: "run.sh", change: "changed" },
    { path: "src/deep/c.md", change: "restored" },
  ];
  const sorted = (list: Array<{ path: string }>) => [...list].sort((x, y) => x.path.localeCompare(y.path));
  assert.deepEqual(sorted(await snapshots.changesTo(before)), sorted(expected));

  const result = await snapshots.restore(before);
  assert.deepEqual(sorted(result.changes), sorted(expected));
  assert.equal(read(workspace, "a.txt"), "a\n");
  assert.equal(read(workspace, "src/deep/c.md"), "c\n");
  assert.equal(existsSync(join(workspace, "new")), false, "the folder made since goes with its file");
  assert.equal(lstatSync(join(workspace, "run.sh")).mode & 0o111, 0o111);

  // The state just before the restore is itself a snapshot: going forward again (redo).
  await snapshots.restore(result.saved);
  assert.equal(read(workspace, "a.txt"), "changed\n");
  assert.equal(read(workspace, "new/made.txt"), "new\n");
  assert.equal(existsSync(join(workspace, "src/deep/c.md")), false);
});

test("ignored files and files over the size limit are not snapshotted, and a restore leaves them alone", async () => {
  const workspace = tempDir("harness-ws-");
  write(workspace, { ".gitignore": ".env\nbuild/\n", ".env": "TOKEN=1\n", "build/out.js": "1", "kept.txt": "k\n" });
  writeFileSync(join(workspace, "big.bin"), Buffer.alloc(MAX_SNAPSHOT_FILE_BYTES + 1, 1));
  const snapshots = new WorkspaceSnapshots(tempDir("harness-home-"), workspace, "s1");
  const before = await snapshots.take();

  // The turn un-ignores .env, rewrites the big file small, and changes an ignored build output.
  write(workspace, { ".gitignore": "build/\n", "big.bin": "small now", "build/out.js": "2", "made.txt": "m" });
  const result = await snapshots.restore(before);
  assert.equal(read(workspace, ".gitignore"), ".env\nbuild/\n");
  assert.equal(
    read(workspace, ".env"),
    "TOKEN=1\n",
    "ignored before the turn: not deleted although the turn un-ignored it",
  );
  assert.equal(read(workspace, "big.bin"), "small now", "too large to snapshot then: left as it is, not deleted");
  assert.equal(read(workspace, "build/out.js"), "2", "ignored: never touched");
  assert.equal(read(workspace, "made.txt"), undefined);
  assert.deepEqual(result.kept.sort(), [".env", "big.bin"]);
});

test("the user's .git is untouched: refs, index, stash, branches and config stay byte for byte", async () => {
  const workspace = tempDir("harness-ws-");
  write(workspace, { "tracked.txt": "v1\n", "other.txt": "o\n" });
  git(workspace, "init", "-q");
  git(workspace, "add", ".");
  git(workspace, "commit", "-qm", "one");
  git(workspace, "branch", "feature");
  write(workspace, { "tracked.txt": "stashed\n" });
  git(workspace, "stash", "-q");
  write(workspace, { "other.txt": "staged\n" });
  git(workspace, "add", "other.txt");
  const gitState = () => ({
    refs: git(workspace, "for-each-ref"),
    stash: git(workspace, "stash", "list"),
    index: createHash("sha256")
      .update(readFileSync(join(workspace, ".git/index")))
      .digest("hex"),
    config: read(workspace, ".git/config"),
    head: read(workspace, ".git/HEAD"),
    status: git(workspace, "status", "--porcelain"),
  });
  const before = gitState();

  const snapshots = new WorkspaceSnapshots(tempDir("harness-home-"), workspace, "s1");
  const snapshot = await snapshots.take();
  write(workspace, { "tracked.txt": "edited by the turn\n", "new.txt": "n" });
  rmSync(join(workspace, "other.txt"));
  await snapshots.restore(snapshot);

  assert.deepEqual(gitState(), before);
  assert.equal(read(workspace, "other.txt"), "staged\n");
  assert.equal(read(workspace, "new.txt"), undefined);
});

test("a hostile workspace cannot make the snapshot run anything or change a file on the way back", async () => {
  const canaries = tempDir("harness-canary-");
  const workspace = tempDir("harness-ws-");
  const touch = (name: string) => `touch ${join(canaries, name)}`;
  write(workspace, { "lf.txt": "one\ntwo\n", "crlf.txt": "one\r\ntwo\r\n", "data.bin": "x" });
  git(workspace, "init", "-q");
  // Its own config asks for an fsmonitor, hooks and filters; its attributes name them and ask for CRLF.
  writeFileSync(
    join(workspace, ".git/config"),
    `[core]\n\tfsmonitor = ${touch("fsmonitor")}\n\thooksPath = hooks\n[filter "evil"]\n\tclean = ${touch("clean")}\n\tsmudge = ${touch("smudge")}\n\trequired = true\n`,
  );
  write(workspace, {
    ".gitattributes": "* filter=evil text eol=crlf\n",
    "hooks/post-index-change": `#!/bin/sh\n${touch("hook")}\n`,
  });
  execFileSync("chmod", ["+x", join(workspace, "hooks/post-index-change")]);
  // ...and so does a git config planted where a global one would be read.
  const home = tempDir("harness-home-");
  writeFileSync(join(home, ".gitconfig"), `[core]\n\tfsmonitor = ${touch("global")}\n`);

  const snapshots = new WorkspaceSnapshots(home, workspace, "s1");
  const snapshot = await snapshots.take();
  write(workspace, { "lf.txt": "changed", "crlf.txt": "changed" });
  rmSync(join(workspace, "data.bin"));
  await snapshots.restore(snapshot);

  assert.equal(read(workspace, "lf.txt"), "one\ntwo\n", "byte for byte: no line-ending conversion");
  assert.equal(read(workspace, "crlf.txt"), "one\r\ntwo\r\n");
  assert.equal(read(workspace, "data.bin"), "x");
  assert.deepEqual(
    ["fsmonitor", "clean", "smudge", "hook", "global"].filter((name) => existsSync(join(canaries, name))),
    [],
    "nothing the workspace configured ran",
  );
});

test("planted symlinks: a snapshot stores the link, not what it points to, and a restore never writes through one", async () => {
  const outside = tempDir("harness-outside-");
  write(outside, { "secret.txt": "outside secret\n" });
  const workspace = tempDir("harness-ws-");
  write(workspace, { "dir/file.txt": "inside\n" });
  symlinkSync(join(outside, "secret.txt"), join(workspace, "link"));
  const snapshots = new WorkspaceSnapshots(tempDir("harness-home-"), workspace, "s1");
  const snapshot = await snapshots.take();

  // The turn swaps the folder for a link out of the workspace and removes the link.
  rmSync(join(workspace, "dir"), { recursive: true });
  symlinkSync(outside, join(workspace, "dir"));
  rmSync(join(workspace, "link"));
  await snapshots.restore(snapshot);

  assert.equal(existsSync(join(outside, "file.txt")), false, "nothing was written outside the workspace");
  assert.equal(lstatSync(join(workspace, "dir")).isDirectory(), true);
  assert.equal(read(workspace, "dir/file.txt"), "inside\n");
  assert.equal(readlinkSync(join(workspace, "link")), join(outside, "secret.txt"));
  assert.equal(read(outside, "secret.txt"), "outside secret\n");
});

test("pruning drops snapshots beyond the newest N and older than the age limit", async () => {
  const workspace = tempDir("harness-ws-");
  const home = tempDir("harness-home-");
  const snapshots = new WorkspaceSnapshots(home, workspace, "s1");
  const taken: string[] = [];
  for (const text of ["1", "2", "3"]) {
    write(workspace, { "a.txt": text });
    taken.push(await snapshots.take());
    // Git dates commits in whole seconds, and pruning orders snapshots by that date: snapshots taken within one
    // second tie and any of them may be the one dropped. Turns are seconds apart; here each waits for the next second.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
  }
  // Asked of git, not read from refs/harness/: the gc packs the refs that are left into one file.
  const kept = () =>
    readdirSync(join(home, "snapshots")).flatMap((shadow) =>
      git(home, `--git-dir=${join(home, "snapshots", shadow)}`, "for-each-ref", "--format=%(refname:lstrip=2)")
        .split("\n")
        .filter(Boolean),
    );
  assert.deepEqual(kept().sort(), [...taken].sort());
  await snapshots.prune({ maxCount: 2 });
  assert.equal(kept().length, 2);
  assert.ok(!kept().includes(taken[0]) || !kept().includes(taken[1]), "an older one went");
  await snapshots.prune({ now: Date.now() + SNAPSHOT_MAX_AGE_MS + 60_000 });
  assert.deepEqual(kept(), []);
  // Its `git gc` is over when prune resolves: nothing still works in the home folder, so removing it
  // now cannot meet a pack being written (test/support/teardown.ts once failed on ENOTEMPTY that way).
  assert.deepEqual(processesWorkingIn(home), []);
  rmSync(home, { recursive: true });
});

/** Live processes whose working directory is inside `folder` (Linux /proc; none elsewhere). */
function processesWorkingIn(folder: string): string[] {
  if (!existsSync("/proc/self/cwd")) return [];
  return readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === folder || cwd.startsWith(`${folder}/`)
          ? [`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "latin1")}`]
          : [];
      } catch {
        return []; // gone, or not ours to read
      }
    });
}

test("a snapshot after warm() holds the files as they are when it is taken, and one of unchanged files holds the same tree", async () => {
  const workspace = tempDir("harness-ws-");
  write(workspace, { "a.txt": "a\n", "b.txt": "b\n" });
  const home = tempDir("harness-home-");
  const snapshots = new WorkspaceSnapshots(home, workspace, "s1");
  const gitDir = join(home, "snapshots", createHash("sha256").update(workspace).digest("hex").slice(0, 24));
  await snapshots.warm();
  // Changed after the warming: the snapshot must still see it (take() looks again).
  write(workspace, { "a.txt": "changed after warm\n", "new.txt": "new\n" });
  const first = await snapshots.take();
  const second = await snapshots.take();
  const shadowGit = (...args: string[]) =>
    execFileSync("git", args, {
      encoding: "utf8",
      env: { ...process.env, GIT_DIR: gitDir, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  assert.equal(shadowGit("show", `${first}:a.txt`), "changed after warm\n");
  assert.equal(shadowGit("show", `${first}:new.txt`), "new\n");
  assert.equal(shadowGit("rev-parse", `${second}^{tree}`), shadowGit("rev-parse", `${first}^{tree}`));
  assert.equal(shadowGit("fsck", "--strict", "--no-dangling"), "", "commits written by harness are sound");

  write(workspace, { "b.txt": "b changed\n" });
  assert.deepEqual(await snapshots.changesTo(second), [{ path: "b.txt", change: "changed" }]);
  await snapshots.restore(second);
  assert.equal(read(workspace, "b.txt"), "b\n");
});
