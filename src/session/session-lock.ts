// One process at a time writes a session. Two harnesses continuing one session interleaved their
// turns, and the next resume replaced real tool results with "interrupted". A session is locked
// by `<id>.lock` beside its file, naming the owner (pid, the process's start time, the boot); a
// lock whose owner is gone (killed, crashed, the machine rebooted) is stale and taken over.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { currentOwner, isOwnerAlive, type ProcessOwner, parseOwner } from "../shared/process-owner.ts";
import { readSession, type SessionData } from "./session-reader.ts";

/** The session's lock cannot be taken: held by a live process (SessionBusyError), or the file system said no. */
export class SessionLockError extends Error {
  override name = "SessionLockError";
  constructor(
    message: string,
    /** The file system's error code (ENOSPC, EACCES, ...), when it said no. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The session is held by a live process: say who, and how to go on without waiting for it. */
export class SessionBusyError extends SessionLockError {
  override name = "SessionBusyError";
  constructor(
    readonly sessionId: string,
    readonly owner: ProcessOwner,
  ) {
    const who = owner.pid === process.pid ? "this harness" : "another harness";
    super(
      `session ${sessionId} is in use by ${who} (pid ${owner.pid}, since ${owner.since}); wait for it to end, or continue a copy of it: harness --fork -r ${sessionId}`,
    );
  }
}

/** A session held by this process; `release` gives it back (once; later calls do nothing). */
export interface SessionLock {
  release(): void;
}

/** A stored session read while holding its lock, so nobody appends between the reading and the writing. */
export interface LockedSession extends SessionData {
  lock: SessionLock;
}

/** A lock file this process holds: what it says, and how many holds are on it (see shareHeldLock). */
interface Hold {
  text: string;
  count: number;
}

/** Lock files this process holds: removed on exit too (process.exit, a second Ctrl-C). */
const held = new Map<string, Hold>();
process.once("exit", () => {
  for (const [file, hold] of held) removeIfOwn(file, hold.text);
});

/** Stale locks removed before giving up (another process keeps putting a lock we cannot read there). */
const TAKEOVER_ATTEMPTS = 2;

function lockPathFor(sessionFile: string): string {
  return `${sessionFile.replace(/\.jsonl$/, "")}.lock`;
}

/**
 * Takes the lock of a session for this process. Throws SessionBusyError when a live process
 * (this one included: a session is written by one writer) holds it.
 *
 * The lock file appears whole or not at all (written aside, then hard-linked into place, which
 * fails when one exists), so a half-written lock is never mistaken for a stale one. Taking over a
 * stale lock re-reads it just before removing it; two processes taking over the same stale lock
 * in that instant could still both win. We accept that window (a killed owner and two resumes
 * racing for its session within microseconds) over a lock daemon or native locking.
 */
export function lockSession(sessionFile: string): SessionLock {
  const id = basename(sessionFile, ".jsonl");
  const file = lockPathFor(sessionFile);
  const text = JSON.stringify(currentOwner());
  const aside = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(aside, text, { mode: PRIVATE_FILE_MODE });
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(aside, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt === TAKEOVER_ATTEMPTS) throw error;
        const found = readText(file);
        const owner = found === undefined ? undefined : parseOwner(found);
        if (owner && isOwnerAlive(owner)) throw new SessionBusyError(id, owner);
        // Stale (its owner is gone) or not a lock we wrote: taken over, unless it changed meanwhile.
        if (readText(file) === found) removeQuietly(file);
      }
    }
  } catch (error) {
    if (error instanceof SessionLockError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw new SessionLockError(`cannot lock session ${id} (${file}): ${code ?? message}`, code);
  } finally {
    removeQuietly(aside);
  }
  const hold = { text, count: 0 };
  held.set(file, hold);
  return holdOn(file, hold);
}

/**
 * One more hold on a session this process holds already, for handing the session from one of
 * its writers to the next (a chat's `/resume` of its own session, say to move it to its folder);
 * the lock file goes with the last hold. Undefined when this process does not hold it.
 * Anything else that finds the session held is refused, this process included (lockSession).
 */
export function shareHeldLock(sessionFile: string): SessionLock | undefined {
  const file = lockPathFor(sessionFile);
  const hold = held.get(file);
  return hold && holdOn(file, hold);
}

function holdOn(file: string, hold: Hold): SessionLock {
  hold.count++;
  let isReleased = false;
  return {
    release() {
      if (isReleased) return;
      isReleased = true;
      if (--hold.count > 0 || held.get(file) !== hold) return;
      held.delete(file);
      removeIfOwn(file, hold.text);
    },
  };
}

/** The live process writing the session at `sessionFile` (this one included), if any: listings mark it "in use". */
export function liveOwnerOf(sessionFile: string): ProcessOwner | undefined {
  const found = readText(lockPathFor(sessionFile));
  const owner = found === undefined ? undefined : parseOwner(found);
  return owner && isOwnerAlive(owner) ? owner : undefined;
}

/** Locks the session at `path`, then reads it; the lock is given back when the reading fails. */
export function lockAndReadSession(path: string): LockedSession {
  return readUnderLock(path, lockSession(path));
}

/** Reads the session at `path` whose lock this process holds; the lock is given back when the reading fails. */
export function readUnderLock(path: string, lock: SessionLock): LockedSession {
  try {
    return { ...readSession(path), lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Removes the lock file only while it still says what this process wrote in it. */
function removeIfOwn(file: string, text: string): void {
  if (readText(file) === text) removeQuietly(file);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
