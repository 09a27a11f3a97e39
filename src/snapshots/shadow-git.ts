// Runs the git binary on a shadow repository that lives under $HARNESS_HOME, with a work tree
// that is the user's workspace. It runs in the harness process, outside the sandbox, on a folder
// the model (or a cloned repository) controls, so nothing of that folder's own git setup is used:
// GIT_DIR and GIT_INDEX_FILE are ours (the workspace's .git, its config, hooks, index, stash and
// branches are never read or written), no system or global config is read, inherited GIT_*
// variables are dropped, and every setting that matters is given on the command line. In-tree
// .gitattributes cannot turn on filters or line-ending conversion: the shadow's info/attributes,
// which wins over them, unsets those attributes, so a file comes back byte for byte.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { systemProgram } from "../shared/system-program.ts";

/** A bound on one git command; a snapshot of a large workspace takes seconds, not minutes. */
const GIT_TIMEOUT_MS = 120_000;
/** Output kept from one git command (path lists of a large workspace fit easily). */
const GIT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Settings given to every command, so nothing from any config file can change what git does. */
const FIXED_CONFIG: Record<string, string> = {
  "core.hooksPath": "/dev/null",
  "core.fsmonitor": "false",
  "core.untrackedCache": "false",
  "core.splitIndex": "false",
  "core.sparseCheckout": "false",
  "core.symlinks": "true",
  "core.autocrlf": "false",
  "core.safecrlf": "false",
  "core.eol": "lf",
  "core.filemode": "true",
  "core.ignorecase": process.platform === "darwin" || process.platform === "win32" ? "true" : "false",
  "core.quotePath": "false",
  "core.excludesFile": "/dev/null",
  "core.attributesFile": "/dev/null",
  "commit.gpgSign": "false",
  "gc.auto": "0",
  "maintenance.auto": "false",
  "submodule.recurse": "false",
  "user.name": "harness",
  "user.email": "harness@localhost",
};

/**
 * glibc malloc settings for git: zlib's state for each object written is big enough that glibc
 * maps and unmaps it (or grows and trims the heap) once per file, and on a first snapshot of
 * 10,000 files those page faults were most of the time (measured: 64 s → 14 s, CPU 15 s → 3 s,
 * on a loaded 2-core VM). Keeping freed memory costs git a few MB for its short life. Other C
 * libraries ignore the variable.
 */
const KEEP_FREED_MEMORY = [
  "glibc.malloc.mmap_threshold=134217728",
  "glibc.malloc.trim_threshold=134217728",
  "glibc.malloc.top_pad=16777216",
].join(":");

/** Unsets every attribute that would make git rewrite content on the way in or out. */
const NEUTRAL_ATTRIBUTES = "* -text !eol -ident !filter !working-tree-encoding -crlf\n";

/** git failed (or is missing); the message says what it said. */
export class ShadowGitError extends Error {
  override name = "ShadowGitError";
}

/** One shadow repository: its git folder, the workspace it looks at, and the index in use. */
export interface ShadowGit {
  gitDir: string;
  workTree: string;
  indexFile: string;
}

/**
/**
 * What git makes in the shadow repository (objects, refs, the index) is the user's alone: without
 * `core.sharedRepository` git follows the umask, and under `umask 000` its folders were 0777
 * (state-umask.test.ts).
 */
const SHARED_MODE = "0600";

/**
 * Creates the shadow repository if it is not there yet (idempotent), without starting git: what
 * `git init --template=` makes, written directly (HEAD, config, objects/, refs/), one git
 * process fewer before a session's first snapshot (issue 52: that snapshot holds the first
 * command). Each file is written under a temporary name and renamed, so a session starting at
 * the same moment never reads half of one.
 */
export function initShadowRepo(gitDir: string): void {
  if (existsSync(join(gitDir, "config"))) return;
  for (const folder of ["", "objects", "refs", "refs/heads", "refs/tags", "info"])
    makePrivateFolder(join(gitDir, folder));
  writeAtomically(join(gitDir, "info", "attributes"), NEUTRAL_ATTRIBUTES);
  writeAtomically(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
  // Written last: its presence is what says the repository is complete.
  writeAtomically(
    join(gitDir, "config"),
    `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = false\n\tsharedrepository = ${SHARED_MODE}\n`,
  );
}

/**
 * Writes a commit object of `tree` into the shadow repository, in this process (git's loose
 * object format: zlib of "commit <size>\0<body>", named by its SHA-1), and returns its id:
 * byte for byte what `git commit-tree <tree> -m <subject> -m <body>` writes with the fixed
 * identity, one git process fewer per snapshot. The object is written under a temporary name and
 * renamed, as git does, so a reader never sees half of it.
 */
export function writeCommit(gitDir: string, tree: string, subject: string, body: string): string {
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const identity = `${FIXED_CONFIG["user.name"]} <${FIXED_CONFIG["user.email"]}> ${when}`;
  const content = Buffer.from(
    `tree ${tree}\nauthor ${identity}\ncommitter ${identity}\n\n${subject}\n\n${body}\n`,
    "utf8",
  );
  const object = Buffer.concat([Buffer.from(`commit ${content.length}\0`), content]);
  const id = createHash("sha1").update(object).digest("hex");
  const folder = join(gitDir, "objects", id.slice(0, 2));
  const file = join(folder, id.slice(2));
  if (!existsSync(file)) {
    makePrivateFolder(folder);
    writeAtomically(file, deflateSync(object), 0o400);
  }
  return id;
}

function writeAtomically(file: string, content: string | Buffer, mode = PRIVATE_FILE_MODE): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, file);
}

/**
 * Runs `git <args>` on the shadow repository; resolves with stdout, rejects with ShadowGitError.
 * `okCodes`: exit codes besides 0 that are answers, not failures (`check-ignore` exits 1 for "none").
 * `signal` ends it (only for a command that writes nothing: a killed writer would leave its lock).
 */
export function runGit(
  shadow: ShadowGit,
  args: string[],
  options: { input?: string; okCodes?: number[]; signal?: AbortSignal } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(systemProgram("git"), [...configArgs(), ...args], {
      cwd: shadow.workTree,
      env: shadowEnv(shadow),
      stdio: ["pipe", "pipe", "pipe"],
      timeout: GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes <= GIT_MAX_OUTPUT_BYTES) out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8").slice(0, 4096)));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new ShadowGitError(error.code === "ENOENT" ? "git is not installed (undo needs it)" : `git: ${error.message}`),
      ),
    );
    child.on("close", (code, signal) => {
      if (code === 0 || (code !== null && options.okCodes?.includes(code)))
        return resolve(Buffer.concat(out).toString("utf8"));
      if (outBytes > GIT_MAX_OUTPUT_BYTES)
        return reject(new ShadowGitError(`git ${args[0]}: more than ${GIT_MAX_OUTPUT_BYTES} bytes of output`));
      const why = signal
        ? `killed (${signal}${signal === "SIGKILL" ? `, over ${GIT_TIMEOUT_MS / 1000} s` : ""})`
        : `exit ${code}`;
      reject(new ShadowGitError(`git ${args[0]} failed (${why}): ${err.trim().split("\n")[0] ?? ""}`));
    });
    child.stdin.on("error", () => {}); // git may exit before reading all of it; its exit code tells
    child.stdin.end(options.input ?? "");
  });
}

/**
 * Runs `git <args>` as housekeeping (snapshot pruning's `git gc`), awaited like runGit. It used
 * to be left running on its own, and when the caller went on to remove $HARNESS_HOME (a test's
 * teardown; a user's `rm -rf`) it could still be writing packs there: ENOTEMPTY. Now it runs in a
 * process group of its own (gc starts repack and pack-objects) that is ended if the harness
 * exits first (the CLI exits when its answer is out, without waiting for it); git writes a pack under a temporary name and renames it when done, so an ended gc
 * loses nothing but its work, and the next prune does it again.
 */
export async function runGitHousekeeping(shadow: ShadowGit, args: string[]): Promise<void> {
  const child = spawn(systemProgram("git"), [...configArgs(), ...args], {
    cwd: shadow.gitDir,
    env: shadowEnv(shadow),
    stdio: "ignore",
    detached: true,
    timeout: GIT_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  const endGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.on("exit", endGroup);
  try {
    await new Promise<void>((resolve) => child.on("error", () => resolve()).on("close", () => resolve()));
  } finally {
    process.off("exit", endGroup);
  }
}

function configArgs(): string[] {
  return Object.entries(FIXED_CONFIG).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/**
 * The environment git runs with: only what it needs. HOME and XDG_CONFIG_HOME point into the
 * shadow repository so that no ~/.gitconfig or global ignore file is found even by a git too
 * old to know GIT_CONFIG_GLOBAL.
 */
function shadowEnv(shadow: ShadowGit): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: shadow.gitDir,
    XDG_CONFIG_HOME: shadow.gitDir,
    LC_ALL: "C",
    GIT_DIR: shadow.gitDir,
    GIT_WORK_TREE: shadow.workTree,
    GIT_INDEX_FILE: shadow.indexFile,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GLIBC_TUNABLES: KEEP_FREED_MEMORY,
  };
}
