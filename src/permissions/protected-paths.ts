// Files and folders that make the NEXT run execute code outside the sandbox: the project's
// harness settings and Claude Code's (hooks, allow rules: harness reads `.claude/settings.json`
// too), its MCP servers, its skills (`.agents/skills`, beside `.harness/skills` and
// `.claude/skills`: text the model follows on its own), and git's config and hooks (which
// `git status` run by the user executes). Nothing inside a run may create or change them
// unasked: the sandbox mounts them read-only (src/sandbox/protected-entries.ts) and the file
// tools ask every time (policy.ts). One list for both.
import path from "node:path";

/** The protected names, wherever they appear in a path (`sub/.git/config` too). */
export const PROTECTED_NAMES = [".harness", ".claude", ".agents", ".mcp.json", ".git"];

/** The protected part of a path (`/w/sub/.git`), or undefined when no component is protected. */
export function protectedPart(absolute: string): string | undefined {
  const parts = absolute.split(path.sep);
  const index = parts.findIndex((part) => PROTECTED_NAMES.includes(part));
  return index === -1 ? undefined : parts.slice(0, index + 1).join(path.sep);
}
