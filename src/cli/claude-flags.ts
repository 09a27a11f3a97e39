// Claude Code's command-line flags (https://docs.claude.com/en/docs/claude-code/cli-reference), as
// a Claude Code user types them from habit or a script. Each is a record: where harness does the
// same thing it is taken, under harness's own name; where it does not, it is refused (exit 2) with
// what harness offers instead, never dropped. The flags both share by name (-p, -c, -r, --model,
// --max-turns, --output-format, --input-format, --system-prompt, --append-system-prompt) are in
// cli-args.ts's FLAGS and need no record; a bare `-r` is read as Claude Code reads it (bare-flag-values.ts).

/** What becomes of one of Claude Code's flags. */
type ClaudeFlag =
  /** The same behaviour under harness's name: the flag (and its value) become `to`. */
  | { kind: "same"; to: (value: string | undefined) => string[] | Refusal; takesValue: boolean }
  /** No such behaviour in harness: refused, naming what harness has instead. */
  | { kind: "refused"; instead: string; takesValue: boolean };

/** Why a flag is not taken, said to the user as a usage error. */
interface Refusal {
  refusal: string;
}

/** Claude Code's `--permission-mode` values, as harness's `--approve` modes. */
const PERMISSION_MODES: Record<string, string> = {
  default: "ask",
  acceptEdits: "edits",
  bypassPermissions: "all",
  plan: "plan",
};

const CLAUDE_FLAGS: Record<string, ClaudeFlag> = {
  // Claude Code requires --verbose with `-p --output-format stream-json`; harness's stream-json
  // always carries every message and its text mode always shows each step, so it changes nothing.
  verbose: { kind: "same", to: () => [], takesValue: false },
  "dangerously-skip-permissions": { kind: "same", to: () => ["--approve", "all"], takesValue: false },
  "permission-mode": {
    kind: "same",
    takesValue: true,
    to: (mode = "") => {
      const approve = Object.hasOwn(PERMISSION_MODES, mode) ? PERMISSION_MODES[mode] : undefined;
      if (approve) return ["--approve", approve];
      // dontAsk (deny what no rule allows) has no harness mode; headless, harness refuses what would ask.
      return {
        refusal: `--permission-mode ${mode}: harness takes ${Object.keys(PERMISSION_MODES).join(", ")} (its --approve ask, edits, all, plan)`,
      };
    },
  },
  "fork-session": { kind: "same", to: () => ["--fork"], takesValue: false },
  "system-prompt-file": { kind: "same", to: (file) => ["--system-prompt", `@${file}`], takesValue: true },
  "append-system-prompt-file": { kind: "same", to: (file) => ["--append-system-prompt", `@${file}`], takesValue: true },
  allowedTools: refused("permission rules: permissions.allow in .claude/settings.json or .harness/settings.json"),
  "allowed-tools": refused("permission rules: permissions.allow in .claude/settings.json or .harness/settings.json"),
  disallowedTools: refused("permission rules: permissions.deny in .claude/settings.json or .harness/settings.json"),
  "disallowed-tools": refused("permission rules: permissions.deny in .claude/settings.json or .harness/settings.json"),
  "add-dir": refused("no second workspace; run harness from a folder above both (--cwd)"),
  "mcp-config": refused("the project's .mcp.json and `harness mcp add` (docs/mcp-acp.md)"),
  "strict-mcp-config": refused("the project's .mcp.json and `harness mcp` (docs/mcp-acp.md)", false),
  settings: refused("settings files in .harness/ and .claude/ (docs/configuration.md)"),
  "setting-sources": refused("settings files in .harness/ and .claude/ (docs/configuration.md)"),
  agents: refused("named agents as files in .claude/agents/ or .harness/agents/ (docs/prompts.md)"),
  "session-id": refused("ids harness makes: -r <id> resumes one, --fork copies it"),
  "max-budget-usd": refused("--max-cost on harness batch"),
  "include-partial-messages": refused("--output stream-json, which streams text as it arrives", false),
  "replay-user-messages": refused("--input stream-json, whose prompts are recorded in the session", false),
  "permission-prompt-tool": refused("harness acp, whose editor answers the questions"),
  ide: refused("harness acp (docs/mcp-acp.md)", false),
  chrome: refused("web_fetch; harness has no browser tool", false),
};

function refused(instead: string, takesValue = true): ClaudeFlag {
  return { kind: "refused", instead, takesValue };
}

/**
 * `argv` with Claude Code's flags put in harness's words, or why one is not taken (saying what
 * harness has instead). Tokens after `--` are left as they are.
 */
export function withClaudeFlags(argv: string[]): string[] | Refusal {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index];
    if (token === "--") return [...out, ...argv.slice(index)];
    const [, name = "", inline] = /^--([^=]+)(?:=(.*))?$/s.exec(token) ?? [];
    const flag = Object.hasOwn(CLAUDE_FLAGS, name) ? CLAUDE_FLAGS[name] : undefined;
    if (!flag) {
      out.push(token);
      continue;
    }
    if (!flag.takesValue && inline !== undefined) return { refusal: `--${name} takes no value` };
    const value = flag.takesValue && inline === undefined ? argv[++index] : inline;
    if (flag.takesValue && value === undefined) return { refusal: `--${name} needs a value` };
    if (flag.kind === "refused")
      return { refusal: `--${name} is Claude Code's; harness has no such option. Instead: ${flag.instead}` };
    const taken = flag.to(value);
    if (!Array.isArray(taken)) return taken;
    out.push(...taken);
  }
  return out;
}
