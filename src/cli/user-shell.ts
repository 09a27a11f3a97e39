// The person's own commands from the command line's side: a command file's `` !`cmd` `` blocks,
// run before its prompt is sent (chat and one-shot), and `!cmd` typed at the chat's prompt (Claude
// Code's bash mode). Both run through Session.runCommand: the model's bash call's hooks, rules and
// sandbox (wiring/user-commands.ts).
import type { AgentEvent } from "../core/events.ts";
import { type PromptWithCommands, runShellBlocks } from "../prompts/command-shell-lines.ts";
import { showControlChars } from "../shared/control-chars.ts";
import type { Palette } from "../ui/colors.ts";
import type { Session } from "../wiring/create-session.ts";

/** Lines of a `!cmd`'s output shown in the chat (the model gets all of it, as a bash call's result). */
const SHOWN_LINES = 20;

/** The command's prompt with each block's output in its place; a refused block is said in the prompt and by `tell`. */
export function promptWithCommandOutput(
  session: Session,
  prompt: PromptWithCommands,
  tell: (line: string) => void,
  signal?: AbortSignal,
): Promise<string> {
  // An untrusted folder's command file is the repository's text, not the person's: each block asks.
  const askWhy =
    prompt.from.isProject && !session.isFolderTrusted
      ? `/${prompt.from.name} is a command file of this folder, which is not trusted`
      : undefined;
  return runShellBlocks(prompt, async (command) => {
    const result = await drain(session.runCommand(command, signal, askWhy));
    if (result.refused === undefined) return { output: result.output };
    tell(`!\`${command}\` was not run: ${result.refused}`);
    return { refused: result.refused };
  });
}

/**
 * `!cmd` at the chat's prompt: runs it and adds the command and its output to the conversation as
 * the person's context, as Claude Code does (`<bash-input>`, `<bash-stdout>`: its
 * processBashCommand, described in sudoprivacy/sudocode#681); no model call. The model reads it
 * with the next prompt. A refused command is said, and the refusal is kept as the output.
 */
export async function runShellLine(
  session: Session,
  command: string,
  stderr: NodeJS.WritableStream,
  colors: Palette,
): Promise<void> {
  const result = await drain(session.runCommand(command));
  const lines = result.output.trimEnd().split("\n");
  const shown =
    lines.length > SHOWN_LINES ? [...lines.slice(0, SHOWN_LINES), `… ${lines.length - SHOWN_LINES} more lines`] : lines;
  const text = result.refused === undefined ? shown.join("\n") : `not run: ${result.refused}`;
  stderr.write(`${(result.refused === undefined ? colors.dim : colors.red)(showControlChars(text))}\n`);
  await session.addContext(
    `<bash-input>${escapeTags(command)}</bash-input>\n<bash-stdout>${escapeTags(result.output.trimEnd())}</bash-stdout><bash-stderr></bash-stderr>`,
  );
}

/** A person's command's result, its trace events passed over (the chat draws none for it). */
async function drain<R>(events: AsyncGenerator<AgentEvent, R>): Promise<R> {
  for (let step = await events.next(); ; step = await events.next()) if (step.done) return step.value;
}

/** The output cannot close the tags it is wrapped in. */
function escapeTags(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
