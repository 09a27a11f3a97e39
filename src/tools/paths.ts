import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { ToolOutput } from "../core/tool.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { specialFileError, specialFileKind } from "../shared/read-regular-file.ts";
import { similarity } from "./similarity.ts";

/** How many similar names a "not found" error suggests. */
const MAX_SUGGESTIONS = 3;
/** How similar a name must be (0..1) to be suggested. */
const MIN_SIMILARITY = 0.5;

/** How much of a file's start is checked for NUL bytes to call it binary. */
const BINARY_CHECK_BYTES = 8192;

/** The absolute path a tool argument names; relative paths are taken from the run's cwd. */
export function resolvePath(cwd: string, file: string): string {
  return path.resolve(cwd, file);
}

/** The file a tool's `path` argument names: absolute, and as the model is shown it. */
export function toolPath(cwd: string, file: string): { absolute: string; shown: string } {
  const absolute = resolvePath(cwd, file);
  return { absolute, shown: displayPath(cwd, absolute) };
}

/** The lock key of a tool that changes the file its `path` names: two calls on one file never overlap. */
export function lockOnFile(input: { path: string }, cwd: string): string {
  return resolvePath(cwd, input.path);
}

/** A path as the model and people should see it: relative to cwd when inside it, `/`-separated. */
export function displayPath(cwd: string, absolute: string): string {
  const relative = path.relative(cwd, absolute);
  if (relative === "") return ".";
  if (relative.startsWith("..") || path.isAbsolute(relative)) return showControlChars(absolute, "");
  return showControlChars(relative.split(path.sep).join("/"), "");
}

/**
 * The error a tool gives for a path that is missing or not the `expected` kind (either kind when
 * none is expected), or undefined when the path is fine. `hint` follows a wrong kind's error: the
 * tool to use instead.
 */
export async function pathError(
  cwd: string,
  absolute: string,
  expected?: "file" | "folder",
  hint = "",
): Promise<ToolOutput | undefined> {
  const stats = await stat(absolute).catch(() => undefined);
  if (!stats) return { isError: true, content: await describeMissing(cwd, absolute) };
  const special = specialFileKind(stats);
  if (special) return { isError: true, content: specialFileError(displayPath(cwd, absolute), special) };
  if (!expected || stats.isDirectory() === (expected === "folder")) return undefined;
  const kinds = expected === "file" ? "a folder, not a file" : "a file, not a folder";
  return { isError: true, content: `Error: ${displayPath(cwd, absolute)} is ${kinds}${hint}.` };
}

/**
 * The error for a path that does not exist, naming similar entries of the deepest folder
 * that does exist, so the model can correct a typo without another call.
 */
async function describeMissing(cwd: string, absolute: string): Promise<string> {
  let folder = path.dirname(absolute);
  let missingName = path.basename(absolute);
  while (!(await isDirectory(folder))) {
    if (path.dirname(folder) === folder) return `Error: ${displayPath(cwd, absolute)} does not exist.`;
    missingName = path.basename(folder);
    folder = path.dirname(folder);
  }
  let names: string[] = [];
  try {
    names = await readdir(folder);
  } catch {
    // An unreadable folder just means no suggestions.
  }
  const wanted = missingName.toLowerCase();
  const suggestions = names
    .map((name) => ({ name, score: nameScore(wanted, name.toLowerCase()) }))
    .filter((entry) => entry.score >= MIN_SIMILARITY)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => displayPath(cwd, path.join(folder, entry.name)));
  const missing = `Error: ${displayPath(cwd, absolute)} does not exist.`;
  return suggestions.length > 0 ? `${missing} Did you mean: ${suggestions.join(", ")}?` : missing;
}

function nameScore(wanted: string, name: string): number {
  if (name.includes(wanted) || wanted.includes(name)) return Math.max(0.8, similarity(wanted, name));
  return similarity(wanted, name);
}

async function isDirectory(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a file (a path, or one already open) looks binary: a NUL byte in its first 8 KB (what git and ripgrep check too). */
export async function isBinaryFile(file: string | FileHandle): Promise<boolean> {
  const handle = typeof file === "string" ? await open(file, "r") : file;
  try {
    const buffer = Buffer.alloc(BINARY_CHECK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_CHECK_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    if (typeof file === "string") await handle.close();
  }
}

/** Replaces an open file's whole content. */
export async function replaceContent(handle: FileHandle, text: string): Promise<void> {
  const data = Buffer.from(text);
  await handle.truncate(0);
  for (let offset = 0; offset < data.length; )
    offset += (await handle.write(data, offset, data.length - offset, offset)).bytesWritten;
}
