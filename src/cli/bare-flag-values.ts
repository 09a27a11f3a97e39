// Flags of a run whose value may be left out, as Claude Code's `-r` and `-w` are.

/** The flags whose value may be left out (by their forms), as Claude Code's `-r` and `-w`. */
const BARE_FLAGS: Record<string, string> = {
  "-r": "resume",
  "--resume": "resume",
  "-w": "worktree",
  "--worktree": "worktree",
};

/**
 * `-r` (or `--resume`) with no id after it (last, or before another option) asks for a session
 * from a list, as Claude Code's does: it becomes `--resume=` (an empty id, run-cli.ts picks).
 * A word after it is always the id, so `-r fix the bug` still resumes session "fix". `-w` alike:
 * bare, the worktree is named for the session; a word after it is its name.
 */
export function withBareValues(argv: string[]): string[] {
  const end = argv.indexOf("--");
  return argv.map((token, index) => {
    const flag = Object.hasOwn(BARE_FLAGS, token) && (end < 0 || index < end) ? BARE_FLAGS[token] : undefined;
    const next = argv[index + 1];
    return flag && (next === undefined || next.startsWith("-")) ? `--${flag}=` : token;
  });
}
