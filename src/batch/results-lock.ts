// One writer per results file: `results.jsonl.lock` holds the writing batch's pid and host.
// Two batches appending to one file would run every task twice and delete each other's
// working copies; the second one stops at once with an error naming the first.
import { hostname } from "node:os";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** The results file is being written by another batch; the message says which and what to do. */
export class ResultsLockError extends Error {
  override name = "ResultsLockError";
}

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/**
 * Takes the lock of `outPath` and returns its release. The lock file appears whole or not at all
 * (written aside, then hard-linked into place, which fails if it exists). A
 * lock left by a batch that died (SIGKILL, a crash) on this host is taken over: its pid is gone.
 * A lock from another host is never taken over: remove it by hand once that batch is gone.
 */
export function lockResults(outPath: string): () => void {
  const path = `${outPath}.lock`;
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const aside = `${path}.${process.pid}`;
  writeFileSync(aside, JSON.stringify(me));
  try {
    for (let tries = 0; tries < 2; tries++) {
      try {
        linkSync(aside, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const holder = readHolder(path);
        if (!holder || isAlive(holder))
          throw new ResultsLockError(
            `${outPath} is being written by another batch (${holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.since}` : `see ${path}`}); wait for it to end, or give this one another --out`,
          );
        rmSync(path, { force: true }); // its batch is gone
        continue;
      }
      return () => {
        if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true });
      };
    }
  } finally {
    rmSync(aside, { force: true });
  }
  throw new ResultsLockError(`${outPath}: cannot take ${path}; another batch keeps taking it`);
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as LockHolder;
    return typeof holder.pid === "number" ? holder : undefined;
  } catch {
    return undefined; // not ours to judge: it stays held
  }
}

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
