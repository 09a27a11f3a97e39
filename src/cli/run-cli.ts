// Wires configuration, provider, tools and a terminal mode together for one CLI invocation:
// the folder, the session to resume, the prompt, then the chat (cli-chat.ts) or the headless
// run (cli-headless.ts) over the flags' session options (cli-session-options.ts).
// Loaded lazily by cli.ts, so `--help` and `--version` never pay for it.

import { openSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import type { UserContent } from "../core/messages.ts";
import { redactWrites } from "../core/stream-redactor.ts";
import { secretPaths } from "../permissions/secret-paths.ts";
import type { LockedSession } from "../session/session-lock.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { debugLog, startDebugLog } from "../shared/debug-log.ts";
import { PRIVATE_FILE_MODE } from "../shared/private-files.ts";
import { secretValuesOf } from "../shared/redact.ts";
import { VERSION } from "../shared/version.ts";
import { type AnswerSchema, AnswerSchemaError, compileAnswerSchema } from "../tools/answer-schema.ts";
import { paletteFor } from "../ui/colors.ts";
import { askOnce, askOnceUncancelled } from "../ui/headless/ask-once.ts";
import { oneShotPrompt } from "../ui/headless/one-shot-prompt.ts";
import { askResumeFolder } from "../ui/resume-folder-question.ts";
import { formatPickList, pickSession } from "../ui/session-picker.ts";
import { stateDir } from "../wiring/defaults.ts";
import { settleHomeWorkspace } from "../wiring/home-workspace.ts";
import { loadResumeTarget, sessionErrorExitCode, sessionsToPick } from "../wiring/stored-sessions.ts";
import type { ChatWorktree } from "./chat-worktree.ts";
import type { CliFlags } from "./cli-args.ts";
import { runChatMode } from "./cli-chat.ts";
import { runHeadless } from "./cli-headless.ts";
import { type CliTerminal, cliModeContext } from "./cli-session-options.ts";
import { enterWorktree, worktreeFarewell } from "./cli-worktree.ts";
import { promptWithImages } from "./prompt-images.ts";
import { chatFolder, headlessFolder, moveTo, recordedFolder } from "./resume-folder.ts";

export async function runCli(flags: CliFlags): Promise<number> {
  const { env, stdin, stdout } = process;
  // Errors and warnings: no key reaches the terminal (events come redacted from the session).
  const stderr = redactWrites(process.stderr, secretValuesOf(env));
  const terminal: CliTerminal = {
    env,
    stdin,
    stdout,
    stderr,
    colors: paletteFor(stderr, env),
    // What no `@path` attaches, whoever wrote the text: the same list the sandbox hides.
    mentionSecrets: secretPaths(env.HOME || homedir(), stateDir(env), env),
  };
  if (flags.debug || flags["debug-file"] !== undefined) {
    const failed = openDebugLog(flags["debug-file"], env, stderr);
    if (failed) return failed;
  }
  // --cwd is `cd dir && harness`: tools, instruction files, folder trust, the sessions' recorded
  // folder (and so -c), relative paths in settings and child processes all start there.
  if (flags.cwd !== undefined) {
    try {
      process.chdir(flags.cwd);
    } catch (error) {
      stderr.write(
        `harness: --cwd ${showControlChars(`${flags.cwd}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)}\n`,
      );
      return 2;
    }
  }
  if (flags.attempts !== undefined || flags.test !== undefined || flags.pick !== undefined)
    return runBestOfN(flags, terminal);
  const initialCwd = process.cwd();
  const worktree = flags.worktree === undefined ? undefined : enterWorktree(flags.worktree, stderr);
  if (typeof worktree === "number") return worktree;
  const from = worktree && { made: worktree, from: initialCwd };
  const code = await runInPlace(flags, terminal, from);
  // A chat asks what becomes of it as it ends (chat-worktree.ts); a prompt run says where it is.
  if (worktree && !isChatRun(flags, terminal)) worktreeFarewell(worktree, stderr);
  return code;
}

/** The run in the folder settled so far (the typed one, --cwd's, or the worktree's). */
async function runInPlace(flags: CliFlags, terminal: CliTerminal, worktree?: ChatWorktree): Promise<number> {
  const { env, stderr } = terminal;
  const isStreamInput = flags.input === "stream-json";
  const isChat = isChatRun(flags, terminal);
  const answerSchema = await answerSchemaOf(flags, isChat);
  if (typeof answerSchema === "string") {
    stderr.write(`harness: ${showControlChars(answerSchema)}\n`);
    return 2;
  }
  if (flags.resume === "") {
    const picked = await pickResumeId(terminal, process.cwd(), isChat);
    if (typeof picked === "number") return picked;
    flags = { ...flags, resume: picked };
  }
  const place = await settlePlace(flags, terminal, isChat);
  if (typeof place === "number") return place;
  const home = await settleHomeWorkspace({
    cwd: place.cwd,
    env,
    allowed: Boolean(flags["allow-home"]),
    ask: isChat ? (question) => askOnce(question, new AbortController().signal) : undefined,
    write: (text) => stderr.write(text),
  });
  if (home !== undefined) return home;

  if (isChat) {
    if (flags.image) {
      stderr.write(
        "harness: --image goes with a prompt (-p or prompt words); in chat, name the image with @path or paste its path\n",
      );
      return 2;
    }
    return runChatMode(cliModeContext(flags, place, terminal), { ...place, worktree });
  }
  const prompt = isStreamInput ? undefined : await headlessPrompt(flags, place.cwd, terminal);
  if (typeof prompt === "number") return prompt;
  return runHeadless(cliModeContext(flags, place, terminal, answerSchema), {
    format: flags.output ?? "text",
    shape: flags.format,
    prompt,
    cwd: place.cwd,
  });
}

/** Whether this run is a chat: no prompt, no stream input, and a terminal to type in. */
function isChatRun(flags: CliFlags, terminal: CliTerminal): boolean {
  const isStreamInput = flags.input === "stream-json";
  return !isStreamInput && flags.print === undefined && flags.positionals.length === 0 && Boolean(terminal.stdin.isTTY);
}

/** `--json-schema` checked as JSON Schema (a one-shot's: a chat has no one answer), or why it cannot be used. */
async function answerSchemaOf(flags: CliFlags, isChat: boolean): Promise<AnswerSchema | string | undefined> {
  const schema = flags["json-schema"];
  if (schema === undefined) return undefined;
  if (isChat) return "--json-schema shapes the answer of a prompt run (-p or prompt words); a chat has no one answer";
  try {
    return await compileAnswerSchema(schema);
  } catch (error) {
    if (error instanceof AnswerSchemaError) return `--json-schema: ${error.message}`;
    throw error;
  }
}

/**
 * The session to resume (-r, -c) and the folder to work in, settled before anything reads the
 * folder (@file, AGENTS.md, trust, the sandbox); a number is the exit code when it cannot be.
 */
async function settlePlace(
  flags: CliFlags,
  terminal: CliTerminal,
  isChat: boolean,
): Promise<{ cwd: string; resumed: LockedSession | undefined } | number> {
  const { env, stderr, colors } = terminal;
  let cwd = process.cwd();
  let resumed: LockedSession | undefined;
  try {
    resumed = loadResumeTarget(flags, env, cwd);
  } catch (error) {
    const code = sessionErrorExitCode(error);
    if (code === undefined) throw error;
    stderr.write(`harness: ${showControlChars((error as Error).message)}\n`);
    return code;
  }
  for (const notice of resumed?.notices ?? []) stderr.write(`harness: ${showControlChars(notice)}\n`);
  if (!resumed) return { cwd, resumed };
  const recorded = recordedFolder(resumed.cwd, cwd);
  const decided = isChat
    ? await chatFolder(recorded, resumed.header.id, cwd, flags.cwd !== undefined, (question) =>
        askResumeFolder(askOnceUncancelled, colors, question),
      )
    : headlessFolder(recorded, resumed.header.id, cwd, flags.cwd !== undefined);
  if ("error" in decided) {
    stderr.write(`harness: ${showControlChars(decided.error)}\n`);
    return decided.code;
  }
  if (decided.notice) stderr.write(`harness: ${showControlChars(decided.notice)}\n`);
  if (decided.moveTo) cwd = moveTo(decided.moveTo);
  return { cwd, resumed };
}

/** `--attempts N` (with `--test`, `--pick`): one text prompt, N attempts in worktrees (best-of-n.ts). */
async function runBestOfN(flags: CliFlags, terminal: CliTerminal): Promise<number> {
  const { stderr } = terminal;
  const misuse =
    flags.attempts === undefined
      ? "--test and --pick go with --attempts N"
      : flags.print === undefined && flags.positionals.length === 0
        ? "--attempts runs one prompt (-p or prompt words), not a chat"
        : flags.input !== undefined || flags.image !== undefined || flags.continue || flags.resume !== undefined
          ? "--attempts takes a text prompt for new sessions: no --input, --image, -c or -r"
          : undefined;
  if (misuse) {
    stderr.write(`harness: ${misuse}\n`);
    return 2;
  }
  const prompt = await headlessPrompt(flags, process.cwd(), terminal);
  if (typeof prompt === "number") return prompt;
  if (typeof prompt !== "string") {
    stderr.write("harness: --attempts takes a text prompt (no pictures)\n");
    return 2;
  }
  const { runAttempts } = await import("./best-of-n.ts");
  return runAttempts(flags, prompt, stderr);
}

/**
 * A headless run's one prompt (-p, prompt words, stdin), with `@shot.png` and --image files as
 * pictures; a number is the exit code when there is none or a picture cannot go.
 */
async function headlessPrompt(
  flags: CliFlags,
  cwd: string,
  terminal: CliTerminal,
): Promise<string | UserContent | number> {
  const { stdin, stderr, mentionSecrets } = terminal;
  const prompt = await oneShotPrompt({
    print: flags.print,
    positionals: flags.positionals,
    stdin,
    cwd,
    secretPaths: mentionSecrets,
    notice: (text) => stderr.write(`harness: ${showControlChars(text)}\n`),
  });
  if (!prompt?.trim()) {
    stderr.write("harness: the prompt is empty (give -p, prompt words, or text on stdin)\n");
    return 2;
  }
  const attached = await promptWithImages(prompt, cwd, { files: flags.image, pastedPaths: false });
  if ("error" in attached) {
    stderr.write(`harness: ${showControlChars(attached.error)}\n`);
    return 2;
  }
  return attached.prompt;
}

/**
 * `-r` without an id: at a terminal, the id picked from a numbered list of recent sessions; headless,
 * the list and how to name one (exit 2). A number is the exit code when nothing is to be resumed.
 */
async function pickResumeId(terminal: CliTerminal, cwd: string, isChat: boolean): Promise<string | number> {
  const { env, stderr, colors } = terminal;
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
  const picked = await pickSession(summaries, askOnceUncancelled, (text) => stderr.write(text), colors);
  if (picked !== undefined) return picked;
  stderr.write("nothing resumed\n");
  return 0;
}

/**
 * `--debug` (to stderr) or `--debug-file <path>` (appended, private to the user): the process's
 * debug log (shared/debug-log.ts), with every key of the environment redacted. Returns 2 when
 * the file cannot be opened.
 */
function openDebugLog(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream,
): number | undefined {
  let write = (line: string) => void stderr.write(line);
  if (file !== undefined) {
    let fd: number;
    try {
      fd = openSync(file, "a", PRIVATE_FILE_MODE);
    } catch (error) {
      stderr.write(
        `harness: --debug-file ${showControlChars(`${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, "")}\n`,
      );
      return 2;
    }
    write = (line) => {
      writeSync(fd, line);
    };
  }
  startDebugLog(write, secretValuesOf(env));
  debugLog("start", `harness ${VERSION} on Node ${process.version}, ${process.platform}, in ${process.cwd()}`);
  return undefined;
}
