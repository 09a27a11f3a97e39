// A command file's `` !`cmd` `` blocks, run before its prompt is sent, as Claude Code runs them:
// each block is replaced by what the command printed ("Execute bash commands before the slash
// command runs using the ! prefix. The output is included in the command context":
// https://docs.anthropic.com/en/docs/claude-code/slash-commands#bash-command-execution).
// Only the file's own text is read for them: the person's arguments are filled in afterwards, so
// a `` !`x` `` in what was typed after the name stays text. Who runs them, and under which rules,
// is the caller's (wiring/user-commands.ts: as any bash call of the model's).

/** A block: `!`, then a command in single backticks (which may span lines). */
const SHELL_BLOCK = /!`([^`]+)`/g;
/** Stands for block `n` while the placeholders are filled (no typed text holds a NUL: it is taken out). */
const mark = (n: number) => `\u0000shell:${n}\u0000`;

/** The template with each block replaced by a mark, and the blocks' commands in order. */
export function markShellBlocks(template: string): { template: string; commands: string[] } {
  const commands: string[] = [];
  const marked = template.replace(SHELL_BLOCK, (_, command: string) => mark(commands.push(command.trim()) - 1));
  return { template: marked, commands };
}

/** A prompt whose blocks still have to run: its text (with marks) and their commands. */
export interface PromptWithCommands {
  text: string;
  commands: readonly string[];
  /** The command file is a project's (its blocks are asked about in an untrusted folder), and its name. */
  from: { name: string; isProject: boolean };
}

/** What one block gave: its output, or the refusal that kept it from running. */
type BlockResult = { output: string } | { refused: string };

/** The prompt with each mark replaced by its command's output (a refused one by a line saying so), run one at a time in order. */
export async function runShellBlocks(
  prompt: PromptWithCommands,
  run: (command: string) => Promise<BlockResult>,
): Promise<string> {
  const results: string[] = [];
  for (const command of prompt.commands) {
    const result = await run(command);
    results.push("output" in result ? result.output.trimEnd() : `[!\`${command}\` was not run: ${result.refused}]`);
  }
  return prompt.text.replace(/\u0000shell:(\d+)\u0000/g, (_, n: string) => results[Number(n)] ?? "");
}
