// What a worker lets a queued job's environment be (docs/batch.md#environments-on-a-queue).
// Anyone who can write to the Redis can push a job, and a rootfs is a host folder bound into the
// job's sandbox: so a job's rootfs is taken only by its real path (symlinks and `..` resolved)
// and only inside a folder the worker's operator allowed (--allow-rootfs), and an image only when
// its reference matches --allow-images (pulling one runs the engine, outside the sandbox, and may
// reach a registry).
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { isInside } from "../../shared/is-inside.ts";
import type { TaskFolderCheck } from "../working-copy.ts";
import type { TaskEnvironment as Environment } from "./task-environment.ts";

/**
 * The real paths of the worker's --allow-rootfs folders, or why one cannot be: a folder `judge`
 * refuses (the host's `/`, home, a credential folder, ...), or one that overlaps `writable` (the
 * worker's --workdir and --allow-dir folders). *Decision*: jobs write in those; a rootfs folder a
 * job could change between the worker's check and bwrap's mount (a top-level entry swapped for a
 * symlink to the host) would reach the host, so the two never overlap.
 */
export function allowedRootfsFolders(
  dirs: string[],
  writable: string[],
  judge: TaskFolderCheck,
): { folders: string[] } | { refused: string } {
  const folders: string[] = [];
  for (const dir of dirs) {
    const checked = judge(dir);
    if ("refused" in checked)
      return { refused: `--allow-rootfs ${checked.refused}: no rootfs may be taken from there` };
    if (checked.folder === "/") return { refused: `--allow-rootfs ${dir} is the host's /` };
    const clash = writable.find((other) => isInside(other, checked.folder) || isInside(checked.folder, other));
    if (clash)
      return {
        refused: `--allow-rootfs ${dir} overlaps ${clash}, where jobs write (--workdir, --allow-dir): keep root filesystems apart`,
      };
    folders.push(checked.folder);
  }
  return { folders };
}

/**
 * A queued job's environment as the worker will use it (its rootfs by real path), or why it is
 * refused: a rootfs that is not an absolute path to a folder, is the host's `/`, fails `judge`,
 * or is not inside one of `allowRootfs` (real paths); an image no pattern of `allowImages`
 * matches (`*` any run of characters).
 */
export function checkEnvironment(
  environment: Environment,
  allow: { rootfs: string[]; images: string[] },
  judge: TaskFolderCheck,
): { environment: Environment } | { refused: string } {
  if (environment.image !== undefined) {
    if (allow.images.length === 0)
      return {
        refused: `image ${environment.image}: this worker takes no images (it was started without --allow-images)`,
      };
    if (!allow.images.some((pattern) => globMatches(pattern, environment.image ?? "")))
      return {
        refused: `image ${environment.image} is not on this worker's --allow-images (allowed: ${allow.images.join(", ")})`,
      };
    return { environment };
  }
  const rootfs = environment.rootfs ?? "";
  if (!isAbsolute(rootfs)) return { refused: `rootfs ${rootfs} is not an absolute path` };
  let real: string;
  try {
    real = realpathSync(rootfs);
    if (!statSync(real).isDirectory()) return { refused: `rootfs ${rootfs} is not a folder` };
  } catch {
    return { refused: `rootfs ${rootfs} does not exist on this worker` };
  }
  const named = real === rootfs ? rootfs : `${rootfs} (${real})`;
  if (real === "/") return { refused: `rootfs ${named} is the host's /` };
  const checked = judge(rootfs);
  if ("refused" in checked) return { refused: `rootfs ${checked.refused}: no rootfs is taken from there` };
  if (!allow.rootfs.some((dir) => isInside(real, dir)))
    return {
      refused: `rootfs ${named} is not inside a folder this worker allows${
        allow.rootfs.length > 0
          ? ` (--allow-rootfs ${allow.rootfs.join(", ")})`
          : ": it was started without --allow-rootfs"
      }`,
    };
  return { environment: { ...environment, rootfs: real } };
}

/** Whether `value` matches `pattern` (`*` matches any run of characters, nothing else is special). */
export function globMatches(pattern: string, value: string): boolean {
  const regex = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${regex.join(".*")}$`).test(value);
}
