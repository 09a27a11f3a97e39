// The CLI's chat mode: a session at the terminal with the line editor, slash commands, a
// replayed transcript when resumed, and a status line; it may move to another folder and start
// again there (`/resume` of a session recorded elsewhere).

import { existsSync } from "node:fs";
import { DEFAULT_CONTEXT_WINDOW, lookupContextWindow } from "../providers/model-info.ts";
import { costOfSpent, sessionPrices } from "../providers/pricing.ts";
import { describeThinking } from "../providers/thinking-levels.ts";
import type { LockedSession } from "../session/session-lock.ts";
import { formatCost } from "../shared/helpers.ts";
import { runChat } from "../ui/chat.ts";
import { createLineReader, type LineReader } from "../ui/editor/line-reader.ts";
import { askOnceUncancelled } from "../ui/headless/ask-once.ts";
import { commandNames } from "../ui/slash-commands.ts";
import type { StatusLineSources } from "../ui/status-line.ts";
import { replayTranscript } from "../ui/transcript-replay.ts";
import type { Session } from "../wiring/create-session.ts";
import { recordWorktreeSession } from "../wiring/session-worktree.ts";
import { loadChatHistory } from "../wiring/stored-sessions.ts";
import { type ChatMove, describerFor } from "./chat-controls.ts";
import { ChatModes } from "./chat-modes.ts";
import { NetworkChatControls } from "./chat-network.ts";
import { type ChatWorktree, leaveChatWorktree } from "./chat-worktree.ts";
import type { CliModeContext } from "./cli-session-options.ts";
import { promptWithImages } from "./prompt-images.ts";
import { moveTo } from "./resume-folder.ts";
import { StartupNotices } from "./startup-notices.ts";

/** Where a chat works, and the stored session it continues. */
export interface ChatPlace {
  cwd: string;
  resumed: LockedSession | undefined;
  /** The worktree it works in (`-w`, `/worktree`): leaving the chat asks what becomes of it. */
  worktree?: ChatWorktree;
}

/** Chats until the person leaves; returns the exit code. */
export async function runChatMode(cli: CliModeContext, start: ChatPlace): Promise<number> {
  // A chat that `/resume`s a session of another folder and is told to switch starts again there,
  // as `cd <folder> && harness -r <id>` would: sandbox, AGENTS.md and trust follow the folder.
  let where = start;
  for (;;) {
    const ended = await chatIn(cli, where);
    if (typeof ended === "number") {
      if (where.worktree) await leaveChatWorktree(where.worktree, askOnceUncancelled, cli.stderr);
      return ended;
    }
    where = { cwd: moveTo(ended.folder), resumed: ended.stored, worktree: ended.worktree ?? where.worktree };
  }
}

async function chatIn(
  cli: CliModeContext,
  { cwd, resumed, worktree }: ChatPlace,
): Promise<number | (ChatMove & { worktree?: ChatWorktree })> {
  const { env, stdin, stdout, stderr, colors } = cli;
  // The line editor takes the terminal only once the session stands (the local-model offer asks before).
  let reader: LineReader | undefined;
  // Setup's warnings are said once per change of their files, in at most one line (startup-notices.ts).
  // Said later (a server failing after the prompt is shown): above the prompt or the turn's blocks, not on them.
  const notices = new StartupNotices((message) =>
    reader ? reader.sayAbove(() => cli.warn(message)) : cli.warn(message),
  );
  const session = await cli.open(
    {
      approval: cli.terminalAsk((question, signal) => reader?.ask(question, signal) ?? Promise.resolve(undefined)),
      takeQueuedMessages: () => reader?.takeQueuedMessages?.() ?? [],
      warn: notices.warn,
    },
    { cwd, resumed },
  );
  if (typeof session === "number") {
    notices.sayAll();
    return session;
  }
  const noticeLine = notices.settle(cwd, env, stderr.columns || 80);
  if (noticeLine) stderr.write(`${noticeLine}\n`);
  if (worktree) recordWorktreeSession(worktree.made.dir, session.id); // `harness worktrees` names it
  const modes = new ChatModes(session);
  const lineReader = createLineReader({
    stdin,
    stdout,
    env,
    cwd,
    history: loadChatHistory(env),
    commands: commandNames(session.promptCommands),
    cycleMode: () => modes.cycleMode(),
  });
  reader = lineReader;
  const controls = new NetworkChatControls({
    worktree,
    session,
    env,
    cwd,
    stdout,
    stderr,
    colors,
    ask: (question) => lineReader.ask(question),
    modes,
  });
  if (resumed) replayTranscript(resumed.messages, { stdout, stderr, env, colors, describe: describerFor(session) });
  try {
    const withImages = (text: string) => promptWithImages(text, cwd, { pastedPaths: true });
    const chat = {
      todo: () => session.todo,
      run: session.run,
      withImages,
      secretPaths: cli.mentionSecrets,
      title: () => `${session.model.provider} · ${session.model.model}`,
      cwd,
      stdout,
      stderr,
      env,
      colors,
    };
    const status = { ...statusSources(session), mode: () => modes.statusPart() };
    const code = await runChat({ ...chat, shownDiffs: cli.shownDiffs, status, modes, ...controls.hooks() }, lineReader);
    return controls.move ? { ...controls.move, worktree: controls.enteredWorktree } : code;
  } finally {
    await session.close("prompt_input_exit");
    // How to come back; nothing to come back to when no prompt was sent (the file appears with the first entry).
    if (!controls.move && existsSync(session.path))
      stderr.write(`${colors.dim(`resume with: harness -r ${session.id}`)}\n`);
  }
}

/** The chat's status line: the window compaction uses (else the table's), configured or listed prices. */
function statusSources(session: Session): StatusLineSources {
  const isConfigured = (model: string) => model === session.settings.model;
  return {
    contextWindow: (model) =>
      session.contextWindow ??
      (isConfigured(model) ? session.settings.contextWindow : undefined) ??
      lookupContextWindow(model, { provider: session.settings.name, configured: session.settings.modelEntries }) ??
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
