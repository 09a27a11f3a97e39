// Reading a file that someone else placed (a cloned repository's AGENTS.md, a mentioned path):
// it may be a symlink to /dev/zero or /proc/self/environ, or a FIFO that nobody writes to.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/** The first bytes of a file, and its whole size. */
export interface FileHead {
  bytes: Buffer;
  size: number;
}

/**
 * At most `maxBytes` of `path`, read only when it is a regular file (symlinks followed);
 * undefined when it is missing, unreadable, a device, a FIFO or a folder. Reading stops at the
 * cap: nothing past it is ever read. Nothing past the size the file had when opened is read
 * either, so a pseudo-file that reports size 0 (/proc) gives nothing. Opened non-blocking, so a
 * FIFO swapped in after the check cannot hang the open.
 */
export function readRegularFile(path: string, maxBytes: number): FileHead | undefined {
  try {
    if (!statSync(path).isFile()) return undefined; // devices are never opened (opening some has effects)
  } catch {
    return undefined;
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return undefined;
    const { size } = opened;
    const bytes = Buffer.alloc(Math.min(size, maxBytes));
    let filled = 0;
    for (let read = 1; filled < bytes.length && read > 0; filled += read)
      read = readSync(fd, bytes, filled, bytes.length - filled, filled);
    return { bytes: bytes.subarray(0, filled), size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * What a file that is neither a regular file, a folder nor a symlink is (`a FIFO (named pipe)`,
 * `a socket`, `a character device`, `a block device`); undefined for those three. Opening a FIFO
 * waits for a writer, reading one waits for data, and opening some devices has effects: file
 * tools refuse them by this before opening anything (a command's `mkfifo` once hung a run for good).
 */
export function specialFileKind(stats: Stats): string | undefined {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return undefined;
}

/** The file tools' refusal of a special file, naming what it is (`Error: …`, for the model). */
export function specialFileError(shown: string, kind: string): string {
  return `Error: ${shown} is ${kind}, not a regular file; file tools read and write only regular files. Nothing was done.`;
}
