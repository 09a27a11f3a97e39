// `--fork`: continue a copy of a session instead of the session itself, so a session another run
// holds (or one worth keeping as it is) can go on elsewhere. The copy is a new session file whose
// header names its origin; the origin is read, never locked or written.
import { rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { VERSION } from "../shared/version.ts";
import type { SessionHeader } from "./session-entry.ts";
import { newSessionId } from "./session-id.ts";
import { type LockedSession, lockSession, readUnderLock } from "./session-lock.ts";
import { parseSession, readSessionText, SessionReadError } from "./session-reader.ts";
import { sessionPath } from "./session-store.ts";

/**
 * Copies the session at `originPath` to a new id beside it and returns the copy, read and locked
 * for this process. Whole lines are copied as they are: a live origin's line being written is
 * left out, and stored images and spilled outputs are still named where the origin keeps them
 * (they are never rewritten, and both sessions can read them).
 */
export function forkSession(originPath: string): LockedSession {
  const text = readSessionText(originPath);
  const whole = text.slice(0, text.lastIndexOf("\n") + 1);
  const origin = parseSession(whole, originPath).header; // throws for a file that is not a session
  const header: SessionHeader = {
    ...origin,
    id: newSessionId(),
    startedAt: new Date().toISOString(),
    harnessVersion: VERSION,
    forkedFrom: origin.id,
  };
  const path = sessionPath(dirname(originPath), header.id);
  const lock = lockSession(path);
  try {
    const entries = whole.slice(whole.indexOf("\n") + 1);
    writeFileSync(path, `${JSON.stringify(header)}\n${entries}`, { flag: "wx", mode: PRIVATE_FILE_MODE });
  } catch (error) {
    lock.release();
    rmSync(path, { force: true });
    throw new SessionReadError(
      `cannot copy session ${origin.id} to ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return readUnderLock(path, lock);
}
