// Files and folders that make the NEXT run execute code outside the sandbox: the project's
// harness settings and Claude Code's (hooks, allow rules: harness reads `.claude/settings.json`
// too), its MCP servers, its skills (`.agents/skills`, beside `.harness/skills` and
// `.claude/skills`: text the model follows on its own), and git's config and hooks (which
// `git status` run by the user executes), wherever `core.hooksPath` moves the hooks (husky's
// `.husky/`: src/shared/git-hooks-path.ts). Nothing inside a run may create or change them
// unasked: the sandbox mounts them read-only (src/sandbox/protected-entries.ts) and the file
// tools ask every time (policy.ts). One list for both.
import { lstatSync } from "node:fs";
import path from "node:path";
import { gitHooksPath } from "../shared/git-hooks-path.ts";
import { isInside } from "../shared/is-inside.ts";

/** The protected names, wherever they appear in a path (`sub/.git/config` too). */
export const PROTECTED_NAMES = [".harness", ".claude", ".agents", ".mcp.json", ".git"];

/**
 * The protected part of a path (`/w/sub/.git`, or `/w/.husky/_` when the repository's
 * `core.hooksPath` names it), or undefined when no component is protected.
 */
export function protectedPart(absolute: string): string | undefined {
  const parts = absolute.split(path.sep);
  const index = parts.findIndex((part) => PROTECTED_NAMES.includes(part));
  return index === -1 ? hooksPathOver(absolute) : parts.slice(0, index + 1).join(path.sep);
}

/** The hooks folder of the repository `absolute` is in, when `core.hooksPath` names one and `absolute` is inside it. */
function hooksPathOver(absolute: string): string | undefined {
  for (let folder = path.dirname(absolute); ; folder = path.dirname(folder)) {
    const gitFolder = path.join(folder, ".git");
    const kind = lstatSync(gitFolder, { throwIfNoEntry: false });
    // A folder, or a linked worktree's `.git` file naming its repository.
    if (kind?.isDirectory() || kind?.isFile()) {
      const hooks = gitHooksPath(gitFolder);
      return hooks && isInside(absolute, hooks) ? hooks : undefined;
    }
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** Why an edit of `target` must be asked every time, if it touches a protected path (protected-paths.ts). */
export function whyProtected(target: string): string | undefined {
  const part = protectedPart(target);
  if (!part) return undefined;
  return `${target} is under ${path.basename(part)}, which can make harness or git run commands outside the sandbox; every change there is asked, whatever the approval mode`;
}
