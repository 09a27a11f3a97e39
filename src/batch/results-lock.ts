// One writer per results file: `results.jsonl.lock.<n>` holds the writing batch's pid and host.
// Two batches appending to one file would run every task twice and delete each other's
// working copies; the second one stops at once with an error naming the first.
//
// Why generations (`.lock.1`, `.lock.2`, ...) rather than one lock file: a lock left by a dead
// batch must be taken over, and with one file that is "remove it, then create mine", which two
// starters can both do (each removing what the other just made). With generations nothing is
// removed to take over: the next generation's file is created exclusively, which exactly one
// starter can do; the others find it held by a live batch. The taker then removes the dead ones.

import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";

/** The results file is being written by another batch; the message says which and what to do. */
export class ResultsLockError extends Error {
  override name = "ResultsLockError";
}

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/** Takes-over in a row that another starter won before this one gives up (each is a live batch's). */
const MAX_TRIES = 10;

/**
 * Takes the lock of `outPath` and returns its release. A lock file appears whole or not at all
 * (written aside, then hard-linked into place, which fails if it exists). The newest generation
 * decides: held by a live batch, this one stops; absent, or left by a batch that died (SIGKILL, a
 * crash) on this host, this one creates the next generation. After taking it, the lock is checked
 * again: another live generation (a starter that saw an older state) means both stop rather than
 * both write. A lock from another host is never taken over: remove it by hand once that batch is gone.
 */
export function lockResults(outPath: string): () => void {
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const aside = `${outPath}.lock-aside.${process.pid}`;
  writeFileSync(aside, JSON.stringify(me));
  try {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const newest = generationsOf(outPath).at(-1);
      if (newest) {
        const holder = readHolder(newest.path);
        if (!holder && !existsSync(newest.path)) continue; // its batch just ended: look again
        if (!holder || isAlive(holder)) throw heldError(outPath, newest.path, holder);
      }
      const path = lockPathOf(outPath, (newest?.generation ?? 0) + 1);
      try {
        linkSync(aside, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        continue; // another starter took this generation: look again (it is most likely alive)
      }
      const rival = generationsOf(outPath)
        .filter((other) => other.path !== path)
        .map((other) => ({ path: other.path, holder: readHolder(other.path) }))
        .find(({ holder }) => holder && isAlive(holder));
      if (rival) {
        rmSync(path, { force: true });
        throw heldError(outPath, rival.path, rival.holder);
      }
      for (const older of generationsOf(outPath)) if (older.path !== path) rmSync(older.path, { force: true });
      return () => {
        if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true });
      };
    }
  } finally {
    rmSync(aside, { force: true });
  }
  throw new ResultsLockError(`${outPath}: cannot take its lock; other batches keep taking it`);
}

function heldError(outPath: string, path: string, holder: LockHolder | undefined): ResultsLockError {
  return new ResultsLockError(
    `${outPath} is being written by another batch (${holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.since}` : `see ${path}`}); wait for it to end, or give this one another --out`,
  );
}

function lockPathOf(outPath: string, generation: number): string {
  return `${outPath}.lock.${generation}`;
}

/** The lock files of `outPath`, oldest generation first. */
function generationsOf(outPath: string): Array<{ generation: number; path: string }> {
  const prefix = `${basename(outPath)}.lock.`;
  let names: string[];
  try {
    names = readdirSync(dirname(outPath));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ generation: Number(name.slice(prefix.length)), path: join(dirname(outPath), name) }))
    .sort((a, b) => a.generation - b.generation);
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
