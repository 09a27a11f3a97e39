import { statSync } from "node:fs";

/** What is at a path, following symlinks: the sandbox mounts folders and files differently. */
export function kindOf(file: string): "folder" | "file" | "missing" {
  try {
    return statSync(file).isDirectory() ? "folder" : "file";
  } catch {
    return "missing";
  }
}
