// `harness -w [name]`: moves the run into a new session worktree before anything reads the folder
// (AGENTS.md, trust, settings, the sandbox), and says at the end where the work is.
import { showControlChars } from "../shared/control-chars.ts";
import { createSessionWorktree, type SessionWorktree } from "../wiring/session-worktree.ts";
import { WorktreeError } from "../wiring/worktree-git.ts";

/** Makes the worktree and works in it from here on; a number is the exit code when it cannot be made. */
export function enterWorktree(name: string, stderr: NodeJS.WritableStream): SessionWorktree | number {
  let made: SessionWorktree;
  try {
    made = createSessionWorktree(process.cwd(), name);
  } catch (error) {
    if (!(error instanceof WorktreeError)) throw error;
    stderr.write(`harness: --worktree: ${showControlChars(error.message)}\n`);
    return 2;
  }
  process.chdir(made.cwd);
  const said = [`working in worktree ${made.dir} on branch ${made.branch}`, ...made.notices];
  for (const line of said) stderr.write(`harness: ${showControlChars(line)}\n`);
  return made;
}

/** The last line of a worktree run: where its work is, and how to merge, keep or discard it. */
export function worktreeFarewell(made: SessionWorktree, stderr: NodeJS.WritableStream): void {
  stderr.write(
    `harness: the work is on branch ${made.branch} in ${showControlChars(made.dir)}; harness worktrees merge|keep|discard ${made.name}\n`,
  );
}
