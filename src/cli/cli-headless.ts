// The CLI's headless mode: one prompt (-p, prompt words, stdin), or with `--input stream-json`
// one run per stdin line; output as the terminal renderer draws it or as JSON events.

import type { AgentEvent } from "../core/events.ts";
import { addSpent, EMPTY_USAGE, type ModelUsage, type UserContent } from "../core/messages.ts";
import { promptForLine } from "../prompts/custom-commands.ts";
import { costOfSpent, formatSpent, sessionPrices } from "../providers/pricing.ts";
import { claudeNameOf, withClaudeFields } from "../settings/tool-names.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { attachmentBlocks } from "../ui/attachments.ts";
import { askOnce } from "../ui/headless/ask-once.ts";
import { ClaudeOutput } from "../ui/headless/claude-output.ts";
import { CLOSED_OUTPUT_EXIT, onOutputClosed } from "../ui/headless/closed-output.ts";
import { exitCodeFor, type JSON_FORMATS, type OutputFormat, writeJsonEvent } from "../ui/headless/headless-output.ts";
import { readStreamInput } from "../ui/headless/stream-input.ts";
import { TerminalRenderer } from "../ui/render/terminal-renderer.ts";
import { firstLine } from "../ui/text-width.ts";
import type { Session } from "../wiring/create-session.ts";
import { oneShotMcpWaitMs } from "../wiring/extensions.ts";
import type { CliModeContext } from "./cli-session-options.ts";
import { preparePromptImages } from "./prompt-images.ts";
import { promptWithCommandOutput } from "./user-shell.ts";

/** One prompt of a headless run, or why a stdin line could not be one. */
type PromptInput = { text: string | UserContent } | { error: string };

/** What a headless run was given: the output format, and its one prompt (absent with `--input stream-json`). */
export interface HeadlessRun {
  format: OutputFormat;
  /** The JSON output's shape (--format): harness's events, or Claude Code's messages. */
  shape?: (typeof JSON_FORMATS)[number];
  prompt?: string | UserContent;
  /** The folder it works in (custom commands' @mentions resolve there). */
  cwd: string;
}

/** Runs the prompt(s) to the end; returns the exit code. */
export async function runHeadless(cli: CliModeContext, run: HeadlessRun): Promise<number> {
  const { stdin, stdout, stderr, env, shownDiffs } = cli;
  const renderer =
    run.format === "text"
      ? new TerminalRenderer({ stdout, stderr, env, replies: "final", showTrace: Boolean(stderr.isTTY), shownDiffs })
      : undefined;
  const session = await openHeadless(cli, renderer);
  if (typeof session === "number") return session;
  renderer?.setPlan(session.todo); // a resumed session's plan stays pinned while this run works

  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C does not wait
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  // A reader that closed stdout (`| head -1`) wants no more: stop the run (its commands too) and end quietly.
  let isOutputClosed = false;
  onOutputClosed(stdout, () => {
    isOutputClosed = true;
    controller.abort();
  });
  let code = 0;
  // One prompt, or with --input stream-json one run per stdin line, until EOF or a run that did not finish.
  const inputs: AsyncIterable<PromptInput> | Iterable<PromptInput> =
    run.prompt === undefined ? streamPrompts(stdin) : [{ text: run.prompt }];
  for await (const input of inputs) {
    if ("error" in input) {
      stderr.write(`harness: ${showControlChars(input.error)}\n`);
      code = 2;
      break;
    }
    // One Claude output per prompt: each run is one `claude -p`, its init first and its result last.
    const claude =
      run.format !== "text" && run.shape === "claude" ? claudeOutput(run.format, run, session, stdout) : undefined;
    const show = (event: AgentEvent) => {
      if (renderer) renderer.handle(event);
      else if (claude) claude.write(event);
      else writeJsonEvent(run.format as Exclude<OutputFormat, "text">, event, stdout);
    };
    code = await runPrompt(
      cli,
      session,
      await expandCommand(input.text, session, { cwd: run.cwd, mentionSecrets: cli.mentionSecrets, stderr }),
      { show, hasRenderer: Boolean(renderer) },
      controller.signal,
    );
    if (code !== 0) break;
  }
  process.off("SIGINT", onSigint);
  await session.close();
  return isOutputClosed ? CLOSED_OUTPUT_EXIT : code;
}

/** The session, asking at a terminal (the spinner leaves the line before a question takes it) and refusing otherwise. */
function openHeadless(cli: CliModeContext, renderer: TerminalRenderer | undefined): Promise<Session | number> {
  const { stdin, stderr } = cli;
  return cli.open({
    mcpStartupWaitMs: oneShotMcpWaitMs(cli.env),
    approval: stdin.isTTY
      ? cli.terminalAsk((question, signal) => {
          const afterQuestion = renderer?.holdForQuestion();
          return askOnce(question, signal).finally(afterQuestion);
        })
      : {
          nobody: true,
          onRefused: (summary, wouldAllow) =>
            stderr.write(
              `harness: refused ${showControlChars(`${firstLine(summary)}: no one to approve it in a headless run; ${wouldAllow}`)}\n`,
            ),
        },
  });
}

/**
 * `harness -p "/review src"` runs a prompt command as the chat would; other text runs as is.
 * With pictures attached the command is the first part's text; the images stay after it.
 * The typed text's mentions are attached already (oneShotPrompt); the command's own are attached here.
 */
async function expandCommand(
  text: string | UserContent,
  session: Session,
  { cwd, mentionSecrets, stderr }: { cwd: string; mentionSecrets: readonly string[]; stderr: NodeJS.WritableStream },
): Promise<string | UserContent> {
  const attach = (mentions: readonly string[]) => attachmentBlocks(mentions, cwd, mentionSecrets);
  // A refused `` !`cmd` `` block is said on stderr as well as in the prompt (user-shell.ts).
  const tell = (line: string) => stderr.write(`harness: ${showControlChars(line)}\n`);
  const expand = async (line: string) => {
    const expanded = promptForLine(line, session.promptCommands, { cwd, attach });
    return expanded ? await promptWithCommandOutput(session, expanded, tell) : line;
  };
  if (typeof text === "string") return expand(text);
  const first = text[0];
  return first?.type === "text" ? [{ ...first, text: await expand(first.text) }, ...text.slice(1)] : text;
}

/** One run of the session, its events shown; returns its exit code. */
async function runPrompt(
  cli: CliModeContext,
  session: Session,
  prompt: string | UserContent,
  output: { show(event: AgentEvent): void; hasRenderer: boolean },
  signal: AbortSignal,
): Promise<number> {
  const { stderr, colors } = cli;
  const { settings } = session;
  // The core knows no prices: the CLI adds `cost` to the final event, each model's tokens (a
  // subagent's may be another's) at that model's prices; absent when a model's price is unknown.
  const priceList = sessionPrices(settings);
  // The session's model is priced even before it spends, so an unknown price leaves `cost` out.
  let spent: ModelUsage[] = [{ model: settings.model, usage: EMPTY_USAGE }];
  let code = 0;
  for await (const redacted of session.run(prompt, signal)) {
    if (redacted.type === "usage") spent = addSpent(spent, redacted.model ?? settings.model, redacted.usage);
    const priced = redacted.type === "done" ? costOfSpent(spent, priceList) : undefined;
    const event =
      redacted.type === "done" && priced?.unpriced.length === 0 ? { ...redacted, cost: priced.cost } : redacted;
    output.show(event);
    if (event.type === "done") {
      code = exitCodeFor(event);
      // Worded as the terminal renderer words it, so a failed run reads the same in every output format.
      if (!output.hasRenderer && event.error)
        stderr.write(`${colors.red("error:")} ${showControlChars(event.error)}\n`);
      // The one summary (and the one unknown-price warning) of the run, for the person watching.
      if (stderr.isTTY && event.turns > 0) stderr.write(`${colors.dim(formatSpent(spent, priceList))}\n`);
    }
  }
  return code;
}

/** `--input stream-json` lines, each line's pictures made fit as attached files are (a bad one is a bad line). */
async function* streamPrompts(stdin: NodeJS.ReadableStream): AsyncGenerator<PromptInput> {
  for await (const input of readStreamInput(stdin)) {
    if ("error" in input) yield input;
    else {
      const prepared = await preparePromptImages(input.text, `stdin line ${input.line}: `);
      yield "error" in prepared ? prepared : { text: prepared.prompt };
    }
  }
}

/** `--format claude`: one run's events as Claude Code's messages (ui/headless/claude-output.ts). */
function claudeOutput(
  format: "json" | "stream-json",
  run: HeadlessRun,
  session: Session,
  stdout: NodeJS.WritableStream,
): ClaudeOutput {
  const init = {
    cwd: run.cwd,
    tools: session.tools.map((tool) => tool.name),
    model: session.settings.model,
    approvalMode: session.approvalMode.current,
    slashCommands: session.promptCommands.map((command) => command.name),
    claudeName: claudeNameOf,
    claudeInput: (tool: string, input: Record<string, unknown>) => withClaudeFields(tool, input, run.cwd),
  } as const;
  return new ClaudeOutput(format, init, stdout);
}
