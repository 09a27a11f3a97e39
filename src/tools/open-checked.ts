// Opening a file so that what is checked is what is used. The path is resolved, its folder is
// opened, and the check (ToolContext.checkAtUse) judges where that OPEN folder really is; the
// file is then opened inside it without following a symlink (O_NOFOLLOW), and missing folders
// are created one by one the same way. Swapping a folder for a symlink after the check changes
// nothing: the open folder is what was judged. On Linux the folder's real path and the lookups
// inside it go through /proc/self/fd (openat by another name); elsewhere the folder is
// re-resolved by path right before use, which leaves a small window.
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import type { Tool, ToolContext } from "../core/tool.ts";
import { specialFileError, specialFileKind } from "../shared/read-regular-file.ts";

/** `read` an existing file; `update` an existing file in place; `write` it, creating it and its folders when missing. */
export type OpenMode = "read" | "update" | "write";

/** An open file, where it really is, and whether this open created it. */
export interface CheckedFile {
  handle: FileHandle;
  real: string;
  created: boolean;
}

const { O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK, O_NOCTTY } = constants;
const FILE_FLAGS: Record<OpenMode, number> = { read: O_RDONLY, update: O_RDWR, write: O_RDWR };

/** Opens `absolute` for `tool`'s call, or says why not (`Error: ...`, for the model). */
export async function openChecked(
  absolute: string,
  mode: OpenMode,
  call: { tool: Tool; input: unknown; context: ToolContext },
): Promise<CheckedFile | { error: string }> {
  const target = await resolveExisting(absolute);
  let folder = await openFolder(target.folder);
  try {
    const real = path.join(await realPathOf(folder), ...target.missing, target.name);
    const refusal = await call.context.checkAtUse?.(real, mode === "read" ? "read" : "write");
    if (refusal) return { error: `Error: ${refusal}` };
    if (target.missing.length > 0 && mode !== "write") return { error: `Error: ${real} does not exist.` };
    for (const name of target.missing) {
      await mkdir(inside(folder, name).at).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      const next = await openFolder(inside(folder, name), O_NOFOLLOW);
      await folder.handle.close();
      folder = next;
    }
    const file = inside(folder, target.name).at;
    // A FIFO, socket or device is refused before it is opened (opening one may block or have
    // effects); one swapped in after this look is opened non-blocking and refused by its fstat.
    const existing = await lstat(file).catch(() => undefined);
    const special = existing && specialFileKind(existing);
    if (special) return { error: specialFileError(absolute, special) };
    const flags = FILE_FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
    let created = false;
    let handle: FileHandle;
    try {
      handle = mode === "write" ? await open(file, flags | O_CREAT | O_EXCL, 0o666) : await open(file, flags);
      created = mode === "write";
    } catch (error) {
      if (mode !== "write" || (error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      handle = await open(file, flags);
    }
    const stats = await handle.stat();
    const opened = specialFileKind(stats);
    if (opened) {
      await handle.close();
      return { error: specialFileError(absolute, opened) };
    }
    // A file with other names (hard links) is judged by those too: the inode just opened is what is checked.
    if (stats.isFile() && stats.nlink > 1) {
      const otherName = await call.context.checkAtUse?.(real, mode === "read" ? "read" : "write", stats);
      if (otherName) {
        await handle.close();
        return { error: `Error: ${otherName}` };
      }
    }
    return { handle, real, created };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP")
      return {
        error: `Error: ${absolute} is a symlink where the file should be (it appeared after the check, or it points nowhere); file tools do not open a file through it. Nothing was done.`,
      };
    return { error: `Error: could not open ${absolute}: ${(error as Error).message}` };
  } finally {
    await folder.handle.close();
  }
}

/** A file split into the real path of its deepest existing folder, the folders still missing below it, and its name. */
async function resolveExisting(absolute: string): Promise<{ folder: string; missing: string[]; name: string }> {
  // An existing file (or symlink to one) is judged where it really is.
  const whole = await realpath(absolute).catch(() => undefined);
  const file = whole ?? absolute;
  const missing: string[] = [];
  let folder = path.dirname(file);
  for (;;) {
    const real = await realpath(folder).catch(() => undefined);
    if (real !== undefined) return { folder: real, missing: missing.reverse(), name: path.basename(file) };
    missing.push(path.basename(folder));
    folder = path.dirname(folder);
  }
}

/** An open folder: its handle, and the path that reaches it (through the handle on Linux). */
type OpenFolder = { handle: FileHandle; at: string; path: string };

async function openFolder(folder: string | { at: string; path: string }, extraFlags = 0): Promise<OpenFolder> {
  const where = typeof folder === "string" ? { at: folder, path: folder } : folder;
  const handle = await open(where.at, O_RDONLY | O_DIRECTORY | extraFlags);
  return { handle, at: process.platform === "linux" ? `/proc/self/fd/${handle.fd}` : where.path, path: where.path };
}

function inside(folder: OpenFolder, name: string): { at: string; path: string } {
  return { at: path.join(folder.at, name), path: path.join(folder.path, name) };
}

async function realPathOf(folder: OpenFolder): Promise<string> {
  return process.platform === "linux" ? readlink(folder.at) : realpath(folder.path);
}
