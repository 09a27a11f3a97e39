// The chat's slash commands acting on the session (/model, /clear, /resume, /compact, /export, ...),
// and the input history every typed line is added to.

import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ToolCallPart } from "../core/messages.ts";
import { type PromptCommand, promptForLine } from "../prompts/custom-commands.ts";
import { formatSpent, sessionPrices } from "../providers/pricing.ts";
import { describeThinking, parseThinking } from "../providers/thinking-levels.ts";
import { exportHtml } from "../session/export-html.ts";
import { exportMarkdown } from "../session/export-md.ts";
import { appendInputHistory } from "../session/input-history-file.ts";
import { forkSession } from "../session/session-fork.ts";
import { findSessionByPrefix, formatSessionList, summarizeSessions } from "../session/session-list.ts";
import { type LockedSession, lockAndReadSession, readUnderLock, shareHeldLock } from "../session/session-lock.ts";
import { readSession, type SessionData } from "../session/session-reader.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { countOf, cutWithEllipsis, formatDuration } from "../shared/helpers.ts";
import { redactText, secretValuesOf } from "../shared/redact.ts";
import { displayPath } from "../tools/paths.ts";
import type { Palette } from "../ui/colors.ts";
import type { ChatControls, CommandOutcome, ResumeOutcome } from "../ui/commands/command-spec.ts";
import { askResumeFolder } from "../ui/resume-folder-question.ts";
import { isSlashCommand, runSlashCommand } from "../ui/slash-commands.ts";
import { replayTranscript } from "../ui/transcript-replay.ts";
import type { Session } from "../wiring/create-session.ts";
import { historyPathFor, sessionsDirFor } from "../wiring/stored-sessions.ts";
import { describeLeftAlone, describePlan, type UndoPlan } from "../wiring/undo-redo.ts";
import { listChatModels } from "./chat-model-list.ts";
import type { ChatModes } from "./chat-modes.ts";
import { permissionsViewOf, statusViewOf } from "./chat-setup-views.ts";
import { chatFolder, recordedFolder } from "./resume-folder.ts";
import { promptWithCommandOutput, runShellLine } from "./user-shell.ts";

/** Longest command /ps shows (its first line, cut). */
const PS_COMMAND_CHARS = 80;

/** A command on one short line. */
function oneLine(command: string): string {
  const [first, ...rest] = command.trim().split("\n");
  return cutWithEllipsis(rest.length > 0 ? `${first} …` : first, PS_COMMAND_CHARS);
}

/** Sessions shown by /sessions and /resume without an id. */
const CHAT_LISTED_SESSIONS = 10;

/** What the chat's controls act on: the session, and the terminal they report to. */
export interface SessionChatControlsOptions {
  session: Session;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  colors: Palette;
  /** Puts a question to the person at the terminal (undo and redo ask before they act). */
  ask(question: string): Promise<string | undefined>;
  /** The approval modes /mode shows and switches. */
  modes: ChatModes;
}

/** How the session's tools describe a call, for a replayed conversation (the tools and folder it runs with now). */
export function describerFor(session: Session): (call: ToolCallPart) => string {
  return (call) => session.describeCall(call);
}

/** A `/resume` that chose the session's own folder: the chat ends here and starts again there with it. */
export interface ChatMove {
  folder: string;
  /** Locked for this process; the chat started there owns the lock. Absent: a new session (`/worktree` before a prompt). */
  stored?: LockedSession;
}

/** The chat's slash commands over the session, and the input history. */
export class SessionChatControls implements ChatControls {
  /** Set when `/resume` chose to switch folders; the chat has then ended. */
  move: ChatMove | undefined;
  readonly languageServers = () => this.options.session.languageServers(); // for /lsp (ui/lsp-command.ts)
  readonly status = () => statusViewOf(this.options.session, this.options.cwd);
  readonly permissions = () => permissionsViewOf(this.options.session);
  readonly mcpServers = () => this.options.session.setup.mcpServers;
  readonly hooksInEffect = () => this.options.session.setup.hooks;
  readonly namedAgents = () => this.options.session.setup.agents;

  constructor(protected readonly options: SessionChatControlsOptions) {}

  /** The hooks runChat takes. */
  hooks() {
    return {
      onInput: (line: string) =>
        appendInputHistory(historyPathFor(this.options.env), redactText(line, secretValuesOf(this.options.env))),
      runCommand: (line: string): Promise<CommandOutcome> | undefined => {
        const { session, stderr, colors } = this.options;
        // `!cmd`: Claude Code's bash mode (user-shell.ts); `!` alone, or `! ` alone, is a prompt.
        const shell = /^!\s*(\S[\s\S]*)$/.exec(line.trim())?.[1];
        if (shell !== undefined) return runShellLine(session, shell, stderr, colors).then(() => "continue");
        return isSlashCommand(line) ? runSlashCommand(line, this, stderr, colors) : undefined;
      },
    };
  }

  currentModel(): string {
    const { settings } = this.options.session;
    return `${settings.name} · ${settings.model}`;
  }

  listModels(): Promise<string[]> {
    return listChatModels(this.options.session.settings, this.currentModel(), this.options.env);
  }

  /** `openai · gpt-5: context window 400k (was 33k); $1.25/$10 per million tokens in/out`: the switch and what it changed. */
  async switchModel(model: string): Promise<string> {
    const changes = await this.options.session.switchModel(model);
    const { settings } = this.options.session;
    const { prices, isKnown } = sessionPrices(settings)(settings.model);
    // A plan (sign-in) has no per-token price unless config.json gives one: say so rather than "$0/$0".
    const isPlan = settings.signIn !== undefined && prices.input === 0 && prices.output === 0;
    const perToken = `$${prices.input}/$${prices.output} per million tokens in/out`;
    const price = isPlan ? `${settings.signIn} plan: no per-token price` : isKnown ? perToken : "its price is unknown";
    return `${this.currentModel()}: ${[...changes, price].join("; ")}`;
  }

  thinking(): string {
    return describeThinking(this.options.session.settings.thinking);
  }

  async setThinking(text: string): Promise<string> {
    const level = parseThinking(text);
    if (level === undefined)
      throw new Error("/thinking takes off, low, medium, high or a token budget (a positive whole number)");
    const notice = await this.options.session.setThinking(level);
    return notice ?? `thinking: ${describeThinking(level)}`;
  }

  newSession(): string {
    this.options.session.startNew();
    return this.options.session.id;
  }

  sessionId(): string {
    return this.options.session.id;
  }

  usageAndCost(): string {
    const { spent, settings } = this.options.session;
    return formatSpent(spent, sessionPrices(settings));
  }

  listSessions(): string[] {
    return formatSessionList(summarizeSessions(sessionsDirFor(this.options.env), CHAT_LISTED_SESSIONS).summaries);
  }

  async resume(id: string): Promise<ResumeOutcome> {
    const { session, stdout, stderr, env, colors, cwd } = this.options;
    const { path } = findSessionByPrefix(sessionsDirFor(this.options.env), id);
    // This chat's own session goes on holding its lock; another one a harness is writing is refused, saying who.
    const ownLock = path === session.path ? shareHeldLock(path) : undefined;
    const stored = ownLock ? readUnderLock(path, ownLock) : lockAndReadSession(path);
    // A session of another folder: its tools would run here, so the person chooses (resume-folder.ts).
    const decided = await chatFolder(recordedFolder(stored.cwd, cwd), stored.header.id, cwd, false, (question) =>
      askResumeFolder(this.options.ask, colors, question),
    ).catch((error: unknown) => {
      stored.lock.release();
      throw error;
    });
    if ("error" in decided) {
      stored.lock.release();
      return { said: decided.error, isLeaving: false };
    }
    if (decided.moveTo) {
      this.move = { folder: decided.moveTo, stored };
      return { said: `leaving this session to continue ${stored.header.id} in ${decided.moveTo}`, isLeaving: true };
    }
    await session.resume(stored, session.settingsFor(stored));
    for (const notice of stored.notices) stderr.write(`${colors.yellow(showControlChars(notice))}\n`);
    replayTranscript(stored.messages, { stdout, stderr, env, colors, describe: describerFor(session) });
    const where = decided.notice ? `; ${decided.notice}` : "";
    return { said: `resumed session ${session.id} (${this.currentModel()})${where}`, isLeaving: false };
  }

  async fork(): Promise<string> {
    const { session } = this.options;
    if (!existsSync(session.path)) throw new Error("nothing to fork yet: this session has no messages");
    const origin = session.id;
    const copy = forkSession(session.path);
    await session.resume(copy, session.settingsFor(copy));
    return `forked: this chat goes on in ${session.id}; ${origin} stays as it was (harness -r ${origin})`;
  }

  promptCommands(): readonly PromptCommand[] {
    return this.options.session.promptCommands;
  }

  async promptFor(line: string): Promise<string | undefined> {
    const { session, cwd, stderr, colors } = this.options;
    const expanded = promptForLine(line, session.promptCommands, { cwd }); // the chat attaches the whole prompt after
    const tell = (said: string) => stderr.write(`${colors.red(showControlChars(said))}\n`);
    return expanded && promptWithCommandOutput(session, expanded, tell);
  }

  listSkills(): string[] {
    const { listed, untrusted } = this.options.session.skills;
    const lines = listed.map(
      (skill) => `${skill.name}  ${skill.description}  ${displayPath(this.options.cwd, skill.path)}`,
    );
    if (listed.length === 0)
      lines.push(
        "no skills: add SKILL.md folders under .harness/skills/ or $HARNESS_HOME/skills/ (see docs/prompts.md)",
      );
    if (untrusted.length > 0)
      lines.push(
        `${countOf(untrusted.length, "project skill")} left out: this folder is not trusted (${untrusted.map((skill) => skill.name).join(", ")})`,
      );
    return lines;
  }

  async undo(turns: number): Promise<string> {
    return this.confirmAndApply(await this.options.session.planUndo(turns));
  }

  async redo(): Promise<string> {
    return this.confirmAndApply(await this.options.session.planRedo());
  }

  /** Shows what will change, asks, and acts on a yes (an empty answer is a no, as for approvals). */
  private async confirmAndApply(plan: UndoPlan): Promise<string> {
    const { stderr, colors, session } = this.options;
    stderr.write(`${describePlan(plan)}\n`);
    const answer = await this.options.ask(colors.bold(`${plan.kind}? [y/N] `));
    if (!/^\s*y(es)?\s*$/i.test(answer ?? "")) return `nothing was ${plan.kind === "undo" ? "undone" : "redone"}`;
    const result = await session.applyUndo(plan);
    const kept =
      (result && result.kept.length > 0
        ? `; left as they are (ignored or too large to snapshot then): ${result.kept.join(", ")}`
        : "") + (result && result.leftAlone.length > 0 ? `\n${describeLeftAlone(result.leftAlone)}\n` : "");
    const turns = plan.turns === 1 ? "1 turn" : `${plan.turns} turns`;
    return plan.kind === "undo"
      ? `undid ${turns}: the files and the conversation are back to before ${plan.turns === 1 ? "it" : "them"}${kept} (/redo reverses this)`
      : `redid ${turns}${kept}`;
  }

  listBackground(): string[] {
    const now = Date.now();
    return this.options.session.background
      .list()
      .map(
        (job) =>
          `${job.id}  ${job.status}  ${job.status === "running" ? formatDuration(now - job.startedAt) : "-"}  ${oneLine(job.command)}`,
      );
  }

  async killBackground(id: number): Promise<string> {
    const job = this.options.session.background.find(id);
    if (typeof job === "string") throw new Error(job);
    if (!job.isRunning) return `${id} had already ended (${job.info.status})`;
    await job.kill();
    return `${id}: ${job.info.status}`;
  }

  async compact(focus: string): Promise<string> {
    const events = this.options.session.compact(focus);
    let step = await events.next();
    while (!step.done) step = await events.next();
    if (!step.value.ok) throw new Error(`nothing was compacted: ${step.value.error}`);
    const { removedMessages, tokensBefore, tokensAfter } = step.value.event;
    return `compacted: ${countOf(removedMessages, "older message")} summarised (about ${tokensBefore} → ${tokensAfter} tokens)`;
  }

  approvalMode(mode: string): string {
    return mode.trim() === "" ? this.options.modes.describe() : this.options.modes.setMode(mode);
  }

  exportSession(format: "md" | "html", file?: string): string {
    const path = resolve(this.options.cwd, file ?? `${this.options.session.id}.${format}`);
    let session: SessionData;
    try {
      session = readSession(this.options.session.path);
    } catch {
      throw new Error("nothing to export yet: this session has no messages");
    }
    writeFileSync(path, format === "md" ? exportMarkdown(session) : exportHtml(session));
    return path;
  }
}
