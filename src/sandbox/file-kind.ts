import { statSync } from "node:fs";

/** What is at a path, following symlinks: the sandbox mounts folders and files differently. */
export function kindOf(file: string): "folder" | "file" | "missing" {
  try {
    // No exception for a missing path (most hidden paths are): building one per path per command
    // was a third of the sandbox's own time per step (issue 52's profile).
    const stats = statSync(file, { throwIfNoEntry: false });
    if (!stats) return "missing";
    return stats.isDirectory() ? "folder" : "file";
  } catch {
    return "missing";
  }
}
