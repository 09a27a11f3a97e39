// Wires configuration, provider, tools and a terminal mode together for one CLI invocation.
// Loaded lazily by cli.ts, so `--help` and `--version` never pay for it.
import { existsSync } from "node:fs";
import { secretValuesOf } from "./core/redact.ts";
import { redactWrites } from "./core/stream-redactor.ts";
import { createInterface } from "node:readline";
import type { CliFlags } from "./cli-args.ts";
import { describerFor, SessionChatControls, type ChatMove } from "./chat-controls.ts";
import { addSpent, EMPTY_USAGE, type ModelUsage, type UserContent } from "./core/messages.ts";
import { preparePromptImages, promptWithImages } from "./prompt-images.ts";
import { createSession, SessionSetupError, type Session, type SessionOptions } from "./create-session.ts";
import { formatCost } from "./core/helpers.ts";
import { costOfSpent, formatSpent, sessionPrices } from "./providers/pricing.ts";
import { DEFAULT_CONTEXT_WINDOW, lookupContextWindow } from "./providers/model-info.ts";
import { describeThinking } from "./providers/thinking.ts";
import type { LockedSession } from "./session/session-lock.ts";
import { loadChatHistory, loadResumeTarget, sessionErrorExitCode, sessionsToPick } from "./stored-sessions.ts";
import { formatPickList, pickSession } from "./ui/session-picker.ts";
import { chatFolder, headlessFolder, moveTo, recordedFolder } from "./resume-folder.ts";
import { askResumeFolder } from "./ui/resume-folder-question.ts";
import { createTerminalAsk, type AskFn } from "./ui/approval.ts";
import { createTrustQuestion } from "./ui/trust-question.ts";
import { BUILT_IN_COMMANDS, commandNames } from "./ui/slash-commands.ts";
import { acceptsLocalModel } from "./ui/local-offer.ts";
import { keyVariableList } from "./config.ts";
import { promptForLine } from "./prompts/custom-commands.ts";
import { runChat } from "./ui/chat.ts";
import { ShownDiffs } from "./ui/shown-diffs.ts";
import { createLineReader, type LineReader } from "./ui/line-reader.ts";
import { CLOSED_OUTPUT_EXIT, onOutputClosed } from "./ui/closed-output.ts";
import { paletteFor, type Palette } from "./ui/colors.ts";
import { exitCodeFor, writeJsonEvent, type OutputFormat } from "./ui/headless-output.ts";
import { oneShotPrompt } from "./ui/one-shot-prompt.ts";
import type { StatusLineSources } from "./ui/status-line.ts";
import { readStreamInput } from "./ui/stream-input.ts";
import { TerminalRenderer } from "./ui/terminal-renderer.ts";
import { replayTranscript } from "./ui/transcript-replay.ts";
import { firstLine } from "./ui/text-width.ts";

/** Where a chat works, and the stored session it continues. */
interface ChatPlace {
  cwd: string;
  resumed: LockedSession | undefined;
}

export async function runCli(flags: CliFlags): Promise<number> {
  const { env, stdin, stdout } = process;
  // Errors and warnings: no key reaches the terminal (events come redacted from the session).
  const stderr = redactWrites(process.stderr, secretValuesOf(env));
  // --cwd is `cd dir && harness`: tools, instruction files, folder trust, the sessions' recorded
  // folder (and so -c), relative paths in settings and child processes all start there.
  if (flags.cwd !== undefined) {
    try {
      process.chdir(flags.cwd);
    } catch (error) {
      stderr.write(
        `harness: --cwd ${flags.cwd}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`,
      );
      return 2;
    }
  }
  let cwd = process.cwd();
  const colors = paletteFor(stderr, env);

  const isStreamInput = flags.input === "stream-json";
  const isChat = !isStreamInput && flags.print === undefined && flags.positionals.length === 0 && Boolean(stdin.isTTY);
  if (flags.resume === "") {
    const picked = await pickResumeId({ env, cwd, isChat, stderr, colors });
    if (typeof picked === "number") return picked;
    flags = { ...flags, resume: picked };
  }
  let resumed: LockedSession | undefined;
  try {
    resumed = loadResumeTarget(flags, env, cwd);
  } catch (error) {
    const code = sessionErrorExitCode(error);
    if (code === undefined) throw error;
    stderr.write(`harness: ${(error as Error).message}\n`);
    return code;
  }
  for (const notice of resumed?.notices ?? []) stderr.write(`harness: ${notice}\n`);
  // The folder is settled before anything reads it (@file, AGENTS.md, trust, the sandbox).
  if (resumed) {
    const place = recordedFolder(resumed.cwd, cwd);
    const decided = isChat
      ? await chatFolder(place, resumed.header.id, cwd, flags.cwd !== undefined, (question) =>
          askResumeFolder((text) => askOnce(text, new AbortController().signal), colors, question),
        )
      : headlessFolder(place, resumed.header.id, cwd, flags.cwd !== undefined);
    if ("error" in decided) {
      stderr.write(`harness: ${decided.error}\n`);
      return decided.code;
    }
    if (decided.notice) stderr.write(`harness: ${decided.notice}\n`);
    if (decided.moveTo) cwd = moveTo(decided.moveTo);
  }

  const prompt = isStreamInput
    ? undefined
    : await oneShotPrompt({
        print: flags.print,
        positionals: flags.positionals,
        stdin,
        cwd,
        notice: (text) => stderr.write(`harness: ${text}\n`),
      });
  if (!isChat && !isStreamInput && !prompt?.trim()) {
    stderr.write("harness: the prompt is empty (give -p, prompt words, or text on stdin)\n");
    return 2;
  }
  if (isChat && flags.image) {
    stderr.write(
      "harness: --image goes with a prompt (-p or prompt words); in chat, name the image with @path or paste its path\n",
    );
    return 2;
  }
  // `@shot.png` in the prompt and --image files go as pictures; one that cannot is an error before anything runs.
  const attached =
    prompt === undefined ? undefined : await promptWithImages(prompt, cwd, { files: flags.image, pastedPaths: false });
  if (attached && "error" in attached) {
    stderr.write(`harness: ${attached.error}\n`);
    return 2;
  }

  const warn = (message: string) => stderr.write(`harness: ${message}\n`);
  const sessionOptions = {
    cwd,
    env,
    resumed,
    choice: {
      provider: flags.provider,
      model: flags.model,
      baseUrl: flags["base-url"],
      api: flags.api,
      maxTokens: flags["max-tokens"],
      thinking: flags.thinking,
      requestTimeout: flags["request-timeout"],
      idleTimeout: flags["idle-timeout"],
    },
    maxTurns: flags["max-turns"],
    systemPrompt: { replace: flags["system-prompt"], append: flags["append-system-prompt"] },
    contextWindow: flags["context-window"],
    permissions: {
      approve: flags.yes ? "all" : flags.approve,
      sandbox: flags.sandbox,
      allowNetwork: flags["allow-network"],
    },
    reservedCommands: BUILT_IN_COMMANDS,
    offerLocalModel:
      stdin.isTTY && stderr.isTTY
        ? () =>
            acceptsLocalModel({
              ask: (question: string) => askOnce(question, new AbortController().signal),
              keyVariables: keyVariableList(),
              write: (text: string) => stderr.write(text),
            })
        : undefined,
    // At a terminal the folder-trust question is asked once, before the session starts; headless, --trust.
    trust: {
      flag: Boolean(flags.trust),
      ask: stdin.isTTY ? createTrustQuestion({ ask: askOnce, colors, columns: stderr.columns || 80 }) : undefined,
    },
    warn,
  };
  // A diff shown in an approval question is not drawn again after the write (the renderer gets the same list).
  const shownDiffs = new ShownDiffs();
  const terminalAsk = (ask: AskFn) => ({
    ask: createTerminalAsk({ ask, colors, columns: stderr.columns || 80, shownDiffs }),
  });
  const open = async (
    more: Pick<SessionOptions, "approval" | "takeQueuedMessages">,
    where: Pick<SessionOptions, "cwd" | "resumed"> = sessionOptions,
  ): Promise<Session | number> => {
    try {
      return await createSession({ ...sessionOptions, ...where, ...more });
    } catch (error) {
      if (!(error instanceof SessionSetupError)) throw error;
      // The README's rule: `harness:` leads a usage mistake (exit 2), `error:` a run that cannot go (exit 1).
      stderr.write(error.exitCode === 2 ? `harness: ${error.message}\n` : `${colors.red("error:")} ${error.message}\n`);
      return error.exitCode;
    }
  };

  if (isChat) {
    // A chat that `/resume`s a session of another folder and is told to switch starts again there,
    // as `cd <folder> && harness -r <id>` would: sandbox, AGENTS.md and trust follow the folder.
    let where: ChatPlace = { cwd, resumed };
    for (;;) {
      const ended = await chatIn(where);
      if (typeof ended === "number") return ended;
      where = { cwd: moveTo(ended.folder), resumed: ended.stored };
    }
  }

  async function chatIn({ cwd, resumed }: ChatPlace): Promise<number | ChatMove> {
    // The line editor takes the terminal only once the session stands (the local-model offer asks before).
    let reader: LineReader | undefined;
    const session = await open(
      {
        approval: terminalAsk((question, signal) => reader?.ask(question, signal) ?? Promise.resolve(undefined)),
        takeQueuedMessages: () => reader?.takeQueuedMessages?.() ?? [],
      },
      { cwd, resumed },
    );
    if (typeof session === "number") return session;
    const lineReader = createLineReader({
      stdin,
      stdout,
      env,
      cwd,
      history: loadChatHistory(env),
      commands: commandNames(session.promptCommands),
    });
    reader = lineReader;
    const controls = new SessionChatControls({
      session,
      env,
      cwd,
      stdout,
      stderr,
      colors,
      ask: (question) => lineReader.ask(question),
    });
    if (resumed) replayTranscript(resumed.messages, { stdout, stderr, env, colors, describe: describerFor(session) });
    try {
      const withImages = (text: string) => promptWithImages(text, cwd, { pastedPaths: true });
      const chat = {
        todo: () => session.todo,
        run: session.run,
        withImages,
        title: () => `${session.model.provider} · ${session.model.model}`,
        cwd,
        stdout,
        stderr,
        env,
        colors,
      };
      const code = await runChat({ ...chat, shownDiffs, status: statusSources(session), ...controls.hooks() }, reader);
      return controls.move ?? code;
    } finally {
      await session.close();
      // How to come back; nothing to come back to when no prompt was sent (the file appears with the first entry).
      if (!controls.move && existsSync(session.path))
        stderr.write(`${colors.dim(`resume with: harness -r ${session.id}`)}\n`);
    }
  }

  const format = flags.output ?? "text";
  const renderer =
    format === "text"
      ? new TerminalRenderer({ stdout, stderr, env, replies: "final", showTrace: Boolean(stderr.isTTY), shownDiffs })
      : undefined;
  // The spinner leaves the line before a question takes it.
  const session = await open({
    approval: stdin.isTTY
      ? terminalAsk((question, signal) => {
          const afterQuestion = renderer?.holdForQuestion();
          return askOnce(question, signal).finally(afterQuestion);
        })
      : {
          nobody: true,
          onRefused: (summary, wouldAllow) =>
            stderr.write(
              `harness: refused ${firstLine(summary)}: no one to approve it in a headless run; ${wouldAllow}\n`,
            ),
        },
  });
  if (typeof session === "number") return session;
  renderer?.setPlan(session.todo); // a resumed session's plan stays pinned while this run works
  const { settings } = session;

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
  // The core knows no prices: the CLI adds `cost` to the final event, each model's tokens (a
  // subagent's may be another's) at that model's prices; absent when a model's price is unknown.
  const priceList = sessionPrices(settings);
  // One prompt, or with --input stream-json one run per stdin line, until EOF or a run that did not finish.
  const inputs: AsyncIterable<PromptInput> | Iterable<PromptInput> = isStreamInput
    ? streamPrompts(stdin)
    : [{ text: attached!.prompt }];
  for await (const input of inputs) {
    if ("error" in input) {
      stderr.write(`harness: ${input.error}\n`);
      code = 2;
      break;
    }
    // `harness -p "/review src"` runs a prompt command as the chat would; other text runs as is.
    // With pictures attached the command is the first part's text; the images stay after it.
    const expand = (text: string) => promptForLine(text, session.promptCommands) ?? text;
    const prompt =
      typeof input.text === "string"
        ? expand(input.text)
        : input.text.map((part, index) =>
            index === 0 && part.type === "text" ? { ...part, text: expand(part.text) } : part,
          );
    // The session's model is priced even before it spends, so an unknown price leaves `cost` out.
    let spent: ModelUsage[] = [{ model: settings.model, usage: EMPTY_USAGE }];
    for await (const redacted of session.run(prompt, controller.signal)) {
      if (redacted.type === "usage") spent = addSpent(spent, redacted.model ?? settings.model, redacted.usage);
      const priced = redacted.type === "done" ? costOfSpent(spent, priceList) : undefined;
      const event =
        redacted.type === "done" && priced?.unpriced.length === 0 ? { ...redacted, cost: priced.cost } : redacted;
      if (renderer) renderer.handle(event);
      else writeJsonEvent(format as Exclude<OutputFormat, "text">, event, stdout);
      if (event.type === "done") {
        code = exitCodeFor(event);
        // Worded as the terminal renderer words it, so a failed run reads the same in every output format.
        if (!renderer && event.error) stderr.write(`${colors.red("error:")} ${event.error}\n`);
        // The one summary (and the one unknown-price warning) of the run, for the person watching.
        if (stderr.isTTY && event.turns > 0) stderr.write(`${colors.dim(formatSpent(spent, priceList))}\n`);
      }
    }
    if (code !== 0) break;
  }
  process.off("SIGINT", onSigint);
  await session.close();
  return isOutputClosed ? CLOSED_OUTPUT_EXIT : code;
}

/** One prompt of a headless run, or why a stdin line could not be one. */
type PromptInput = { text: string | UserContent } | { error: string };

/** `--input stream-json` lines, each line's pictures made fit as attached files are (a bad one is a bad line). */
/**
 * `-r` without an id: at a terminal, the id picked from a numbered list of recent sessions; headless,
 * the list and how to name one (exit 2). A number is the exit code when nothing is to be resumed.
 */
async function pickResumeId(where: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  isChat: boolean;
  stderr: NodeJS.WritableStream;
  colors: Palette;
}): Promise<string | number> {
  const { env, cwd, isChat, stderr, colors } = where;
  const { summaries, isThisFolder } = sessionsToPick(env, cwd);
  const place = isThisFolder ? `in ${cwd}` : `anywhere (none in ${cwd})`;
  if (summaries.length === 0) {
    stderr.write("harness: no sessions to resume yet\n");
    return 2;
  }
  if (!isChat) {
    stderr.write(`recent sessions ${place}:\n${formatPickList(summaries, Date.now()).join("\n")}\n`);
    stderr.write("Usage: harness -r <id> [options] [prompt words...]   (a unique prefix of the id will do)\n");
    return 2;
  }
  stderr.write(`recent sessions ${place}:\n`);
  const ask = (question: string) => askOnce(question, new AbortController().signal);
  const picked = await pickSession(summaries, ask, (text) => stderr.write(text), colors);
  if (picked !== undefined) return picked;
  stderr.write("nothing resumed\n");
  return 0;
}

async function* streamPrompts(stdin: NodeJS.ReadableStream): AsyncGenerator<PromptInput> {
  for await (const input of readStreamInput(stdin)) {
    if ("error" in input) yield input;
    else {
      const prepared = await preparePromptImages(input.text, `stdin line ${input.line}: `);
      yield "error" in prepared ? prepared : { text: prepared.prompt };
    }
  }
}

/** The chat's status line: the window compaction uses (else the table's), configured or listed prices. */
function statusSources(session: Session): StatusLineSources {
  const isConfigured = (model: string) => model === session.settings.model;
  return {
    contextWindow: (model) =>
      session.contextWindow ??
      (isConfigured(model) ? session.settings.contextWindow : undefined) ??
      lookupContextWindow(model) ??
      DEFAULT_CONTEXT_WINDOW,
    formatCost: (spent) => {
      const priced = costOfSpent(spent, sessionPrices(session.settings));
      return priced.unpriced.length === 0 ? formatCost(priced.cost) : undefined;
    },
    thinking: () => (session.settings.thinking === undefined ? undefined : describeThinking(session.settings.thinking)),
    runningInBackground: () => session.background.runningCount,
    spent: () => session.spent,
  };
}

/** One question on the terminal during a one-shot run; the line editor lives only that long. */
function askOnce(question: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    rl.on("SIGINT", () => process.emit("SIGINT"));
    rl.on("close", () => {
      if (!answered) resolve(undefined);
    });
    rl.question(question, { signal }, (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
  });
}
