import { realpathSync } from "node:fs";

/** The real path (symlinks resolved), or the path as given when it does not exist (yet). */
export function realOrSame(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
