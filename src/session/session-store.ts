// The append-only writer of one session file. Each line goes out in one write of the whole
// line, so a crash (even `kill -9`) leaves complete lines and at most one torn last line,
// which the reader skips. The file is created with the first entry: a chat opened and closed
// without a prompt leaves nothing behind.
import {
  closeSync,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import type { SessionEntry, SessionHeader } from "./session-entry.ts";
import { lockSession, type SessionLock } from "./session-lock.ts";

/** Where a session's file lives, from its id. */
export function sessionPath(sessionsDir: string, id: string): string {
  return join(sessionsDir, `${id}.jsonl`);
}

/**
 * Appends entries to one session file; `flush` makes what was written durable (fsync).
 * Each line is written synchronously, so once `append` returns the line survives the process
 * being killed (it is in the kernel's page cache). Only the fsync, which protects against a
 * power cut or a kernel crash, runs in the background: the next model request never waits for
 * the disk. A power cut can therefore cost the lines written since the last fsync finished:
 * about the last turn.
 *
 * A write that fails (a full disk, a quota, a folder made read-only) is taken back to the last
 * whole line and leaves the writer `failed`: nothing more is written, the file stays readable
 * and resumable, and `failure` says what happened in one line.
 *
 * The writer holds the session's lock (session-lock.ts) from before its first line until `close`.
 */
export class SessionWriter {
  private fd: number | undefined;
  /** Bytes of whole lines in the file: where a failed write is cut back to. */
  private size = 0;
  /** Set once a write failed: one line for the user. */
  failure: string | undefined;
  /** An fsync is running in the background; `isSyncWanted`: lines were written since it started. */
  private isSyncing = false;
  private isSyncWanted = false;

  private constructor(
    readonly path: string,
    readonly header: SessionHeader,
    private readonly isNew: boolean,
    private lock: SessionLock | undefined,
  ) {}

  /** A new session; its file (and its lock) appear with the first entry. */
  static create(sessionsDir: string, header: SessionHeader): SessionWriter {
    return new SessionWriter(sessionPath(sessionsDir, header.id), header, true, undefined);
  }

  /** An existing session, continued under its lock (taken before it was read): entries go to the end of the same file. */
  static resume(path: string, header: SessionHeader, lock: SessionLock): SessionWriter {
    return new SessionWriter(path, header, false, lock);
  }

  get id(): string {
    return this.header.id;
  }

  /** The folder beside the file where this session's over-long tool outputs are kept whole. */
  get spillDir(): string {
    return join(dirname(this.path), this.header.id, "spill");
  }

  append(entry: SessionEntry): void {
    if (this.failure) return;
    try {
      this.writeLine(this.open(), `${JSON.stringify(entry)}\n`);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Starts forcing written lines to the disk, without waiting (called at the end of every turn). */
  flush(): void {
    if (this.fd === undefined) return;
    if (this.isSyncing) {
      this.isSyncWanted = true; // one more when this one ends: it may have started before the latest lines
      return;
    }
    this.isSyncing = true;
    fsync(this.fd, () => {
      // An error here (the file closed meanwhile) is harmless: close() syncs before closing.
      this.isSyncing = false;
      if (!this.isSyncWanted) return;
      this.isSyncWanted = false;
      this.flush();
    });
  }

  /** Syncs what is left, waiting for it, closes the file and gives the session's lock back. */
  close(): void {
    if (this.fd !== undefined) {
      try {
        fsyncSync(this.fd);
      } catch (error) {
        this.failure ??= describeFailure(this.path, error);
      }
      closeSync(this.fd);
      this.fd = undefined;
    }
    this.lock?.release();
    this.lock = undefined;
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    if (this.isNew) {
      makePrivateFolder(dirname(this.path));
      this.lock = lockSession(this.path); // before the file: a -c that finds it finds it taken
      // "wx": a new id never overwrites an existing session.
      this.fd = openSync(this.path, "wx", PRIVATE_FILE_MODE);
      this.writeLine(this.fd, `${JSON.stringify(this.header)}\n`);
    } else {
      this.fd = openSync(this.path, "r+");
      this.size = dropTornTail(this.fd);
      closeSync(this.fd);
      this.fd = openSync(this.path, "a");
    }
    return this.fd;
  }

  private writeLine(fd: number, line: string): void {
    writeWhole(fd, line);
    this.size += Buffer.byteLength(line);
  }

  /** Takes a half-written line back, so the file ends whole; a new file without its header goes. */
  private fail(error: unknown): void {
    this.failure = describeFailure(this.path, error);
    if (this.fd === undefined) return;
    try {
      if (this.isNew && this.size === 0) unlinkSync(this.path);
      else ftruncateSync(this.fd, this.size);
    } catch {
      // the reader skips a torn last line, and a resume cuts it off
    }
  }
}

/** What the user reads when the session cannot be written, and what to do about it. */
function describeFailure(path: string, error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const what = code
    ? (FAILURE_WORDS[code] ?? message.replace(/^[A-Z]+: /, "").replace(/, \w+( '.*')?$/, ""))
    : String(error);
  const remedy = code === "ENOSPC" || code === "EDQUOT" ? "free some space" : "fix that";
  return `cannot write the session file ${path}: ${what}${code ? ` (${code})` : ""}; the run stopped. The session is kept up to its last whole entry: ${remedy}, then continue it with harness -c`;
}

const FAILURE_WORDS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EIO: "input/output error",
};

/** One write call per line where the OS allows (it does for regular files); loops only on a short write. */
function writeWhole(fd: number, line: string): void {
  const bytes = Buffer.from(line, "utf8");
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Bytes read backwards at a time while looking for the last newline. */
const TAIL_CHUNK = 64 * 1024;

/**
 * A torn last line (the harness was killed while writing it) is cut off before appending, so
 * the next line does not glue onto it and the reader's notice about it is shown once, not forever.
 */
function dropTornTail(fd: number): number {
  const size = fstatSync(fd).size;
  let end = size;
  const chunk = Buffer.alloc(TAIL_CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const read = readSync(fd, chunk, 0, end - start, start);
    const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) {
      const keep = start + newline + 1;
      if (keep < size) ftruncateSync(fd, keep);
      return keep;
    }
    end = start;
  }
  // No newline at all: not even the header is whole. Leave the file as it is; the reader reports it.
  return size;
}
