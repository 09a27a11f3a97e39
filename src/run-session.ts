// The session side of a CLI run: which session to continue (-c, -r), the recorder that writes
// every event to it, input history, and the controls the chat's slash commands act on.
// Like run-cli.ts this wires folders together (config, providers, session, ui); the pieces
// themselves live in src/session and src/ui.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { stateDir, type ProviderChoice } from "./config.ts";
import type { Agent } from "./core/agent.ts";
import type { AgentEvent } from "./core/events.ts";
import { redact } from "./core/redact.ts";
import type { Usage } from "./core/messages.ts";
import { createProvider, type ProviderSettings } from "./providers/index.ts";
import { exportHtml } from "./session/export-html.ts";
import { exportMarkdown } from "./session/export-md.ts";
import { appendInputHistory, loadInputHistory } from "./session/input-history.ts";
import { resumeProviderChoice } from "./session/resume-choice.ts";
import { SESSION_FORMAT_VERSION } from "./session/session-entry.ts";
import { newSessionId } from "./session/session-id.ts";
import { findLatestSession, findSessionByPrefix, formatSessionList, SessionLookupError, summarizeSessions } from "./session/session-list.ts";
import { readSession, SessionReadError, type SessionData } from "./session/session-reader.ts";
import { SessionRecorder } from "./session/session-recorder.ts";
import { SessionWriter } from "./session/session-store.ts";
import type { Palette } from "./ui/colors.ts";
import { isSlashCommand, runSlashCommand, type ChatControls, type CommandOutcome } from "./ui/slash-commands.ts";
import { formatReplay } from "./ui/transcript-replay.ts";
import { VERSION } from "./version.ts";

/** Sessions shown by /sessions and /resume without an id. */
const CHAT_LISTED_SESSIONS = 10;

export function sessionsDirFor(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "sessions");
}

/** A session that cannot be continued as asked (none, ambiguous, unreadable): exit 2 with the message. */
export function isSessionError(error: unknown): error is Error {
  return error instanceof SessionLookupError || error instanceof SessionReadError;
}

/** The session named by `--continue` or `--resume`, read and repaired; undefined for a new session. */
export function loadResumeTarget(flags: { continue?: boolean; resume?: string }, env: NodeJS.ProcessEnv, cwd: string): SessionData | undefined {
  if (flags.continue && flags.resume !== undefined) throw new SessionLookupError("use either --continue or --resume, not both");
  if (flags.continue) return readSession(findLatestSession(sessionsDirFor(env), cwd).path);
  if (flags.resume !== undefined) return readSession(findSessionByPrefix(sessionsDirFor(env), flags.resume).path);
  return undefined;
}

/** Flags and environment, with a resumed session's provider and model as the defaults below them. */
export function providerChoiceFor(choice: ProviderChoice, env: NodeJS.ProcessEnv, resumed: SessionData | undefined): ProviderChoice {
  return resumed ? resumeProviderChoice(choice, env, resumed) : choice;
}

/** Lines typed in earlier chats, oldest first, for the arrows. */
export function loadChatHistory(env: NodeJS.ProcessEnv): string[] {
  return loadInputHistory(historyPathFor(env));
}

function historyPathFor(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "history");
}

/** The recorder for this run: appending to the resumed session, or a new one (created on its first entry). */
export function startRecorder(env: NodeJS.ProcessEnv, cwd: string, settings: ProviderSettings, resumed: SessionData | undefined): SessionRecorder {
  if (resumed) return new SessionRecorder(SessionWriter.resume(resumed.path, resumed.header), resumed.usage);
  const header = {
    type: "session" as const,
    version: SESSION_FORMAT_VERSION,
    id: newSessionId(),
    cwd,
    provider: settings.name,
    model: settings.model,
    baseUrl: settings.baseUrl,
    startedAt: new Date().toISOString(),
    harnessVersion: VERSION,
  };
  return new SessionRecorder(SessionWriter.create(sessionsDirFor(env), header));
}

/** What a chat needs besides the agent: the session, the settings it was started with, its terminal. */
export interface ChatSessionOptions {
  agent: Agent;
  recorder: SessionRecorder;
  settings: ProviderSettings;
  /** Provider settings for a session being resumed, resolved as `-r` would (flags and environment win). */
  resolveSettings(session: SessionData): ProviderSettings;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stderr: NodeJS.WriteStream;
  colors: Palette;
  /** Values never written to the session file (keys seen in the environment), as in one-shot runs. */
  secrets?: readonly string[];
}

/**
 * The chat's session: records events, keeps input history, and implements the slash commands.
 * The agent is changed in place (messages, provider, session id) so the chat loop keeps using it.
 */
export class ChatSession implements ChatControls {
  private recorder: SessionRecorder;
  private settings: ProviderSettings;

  constructor(private readonly options: ChatSessionOptions) {
    this.recorder = options.recorder;
    this.settings = options.settings;
  }

  /** The hooks runChat takes. */
  hooks() {
    return {
      onEvent: (event: AgentEvent) => this.recorder.record(redact(event, this.options.secrets)),
      onInput: (line: string) => appendInputHistory(historyPathFor(this.options.env), line),
      runCommand: (line: string): Promise<CommandOutcome> | undefined =>
        isSlashCommand(line) ? runSlashCommand(line, this, this.options.stderr, this.options.colors) : undefined,
    };
  }

  close(): void {
    this.recorder.close();
  }

  currentModel(): string {
    return `${this.settings.name} · ${this.settings.model}`;
  }

  async switchModel(model: string): Promise<string> {
    const settings = { ...this.settings, model };
    this.options.agent.configure({ provider: await createProvider(settings) });
    this.settings = settings;
    this.recorder.recordModelChange(settings.name, settings.model, settings.baseUrl);
    return this.currentModel();
  }

  newSession(): string {
    this.recorder.close();
    this.recorder = startRecorder(this.options.env, this.options.cwd, this.settings, undefined);
    this.options.agent.replaceMessages([]);
    this.options.agent.configure({ sessionId: this.recorder.id, spillDir: this.recorder.writer.spillDir });
    return this.recorder.id;
  }

  sessionId(): string {
    return this.recorder.id;
  }

  usage(): Usage {
    return this.recorder.usage;
  }

  listSessions(): string[] {
    return formatSessionList(summarizeSessions(sessionsDirFor(this.options.env), CHAT_LISTED_SESSIONS).summaries);
  }

  async resume(id: string): Promise<string> {
    const session = readSession(findSessionByPrefix(sessionsDirFor(this.options.env), id).path);
    const settings = this.options.resolveSettings(session);
    const isSameProvider = settings.name === this.settings.name && settings.model === this.settings.model && settings.baseUrl === this.settings.baseUrl;
    const provider = isSameProvider ? this.options.agent.options.provider : await createProvider(settings);
    this.recorder.close();
    this.recorder = startRecorder(this.options.env, this.options.cwd, settings, session);
    this.settings = settings;
    const { agent, stderr, colors } = this.options;
    agent.replaceMessages(session.messages);
    agent.configure({ provider, sessionId: this.recorder.id, spillDir: this.recorder.writer.spillDir });
    for (const notice of session.notices) stderr.write(`${colors.yellow(notice)}\n`);
    stderr.write(formatReplay(session.messages, colors));
    return `${this.recorder.id} (${this.currentModel()})`;
  }

  async compact(focus: string): Promise<string> {
    const events = this.options.agent.compact(focus);
    let step = await events.next();
    for (; !step.done; step = await events.next()) this.recorder.record(redact(step.value, this.options.secrets));
    if (!step.value.ok) throw new Error(`nothing was compacted: ${step.value.error}`);
    const { removedMessages, tokensBefore, tokensAfter } = step.value.event;
    return `compacted: ${removedMessages} older messages summarised (about ${tokensBefore} → ${tokensAfter} tokens)`;
  }

  exportSession(format: "md" | "html", file?: string): string {
    const path = resolve(this.options.cwd, file ?? `${this.recorder.id}.${format}`);
    let session: SessionData;
    try {
      session = readSession(this.recorder.writer.path);
    } catch {
      throw new Error("nothing to export yet: this session has no messages");
    }
    writeFileSync(path, format === "md" ? exportMarkdown(session) : exportHtml(session));
    return path;
  }
}
