// Linux: the mounts that keep the home folder's code-running files (~/.bashrc, ~/.gitconfig,
// ~/.config/autostart, ...) read-only when the workspace holds the home folder. A mount protects
// only what exists, so the folders such files live in (~, ~/.config, ...) are read-only
// themselves, which stops a missing one being created, and their other entries are bound
// writable again, so work in the home folder goes on. Symlinks among those entries stay as they
// are (binding one would bind where it points); a code file that is a symlink is read-only where
// it leads, too. Comes before the protected entries' mounts: a later bind of a folder would
// cover the read-only mounts inside it.
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { realOrSame } from "../shared/real-path.ts";
import type { SandboxPolicy } from "./sandbox-policy.ts";

/** The bwrap arguments for `policy.homeCode`; none when the workspace does not hold the home folder. */
export function homeCodeMounts(policy: SandboxPolicy): string[] {
  const code = policy.homeCode;
  if (!code) return [];
  const args: string[] = [];
  const guard = (folder: string) => {
    if (!lstatSync(folder, { throwIfNoEntry: false })?.isDirectory()) return;
    args.push("--ro-bind", folder, folder);
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return; // unreadable: it stays read-only as a whole
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink() || code.files.includes(full)) continue;
      if (code.guardedFolders.includes(full)) guard(full);
      else args.push("--bind", full, full);
    }
  };
  guard(code.home);
  for (const file of code.files) {
    const real = realOrSame(file);
    if (real !== file) args.push("--ro-bind", real, real);
  }
  return args;
}
