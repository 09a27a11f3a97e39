// What a file that someone else wrote may name and have read for it (an instruction file's
// `@import`, a custom command's `@mention`, a prompt's `@path`): never a credential path, and for a
// repository's text nothing outside the repository. One judgement for every such reader.
import { resolve } from "node:path";
import { isInside } from "./is-inside.ts";
import { realOrSame } from "./real-path.ts";

/** What a text may reach: never `secretPaths`; only inside `roots` when they are given. */
export interface Reach {
  /** Credential folders and files and harness's own state (permissions/secret-paths.ts makes the list). */
  secretPaths: readonly string[];
  /** Real folders the path must resolve into (absent: anywhere but the secret paths). */
  roots?: readonly string[];
  /** How `roots` is named in the reason ("the repository", "the home folder"). */
  rootsName?: string;
}

/**
 * Why `file` is out of `reach`, or undefined when it may be read. Both the path as named and its
 * real path (links followed) are judged, so neither `~/.ssh/id_rsa` nor a link to it passes.
 */
export function whyOutOfReach(file: string, reach: Reach): string | undefined {
  const named = resolve(file);
  const real = realOrSame(named);
  if (reach.secretPaths.some((secret) => isInside(named, secret) || isInside(real, realOrSame(secret))))
    return "a credential or harness state path is never read for a text";
  if (reach.roots && !reach.roots.some((root) => isInside(real, root)))
    return `it leads outside ${reach.rootsName ?? "the allowed folders"} (to ${real})`;
  return undefined;
}
