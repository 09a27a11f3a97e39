// Where sessions and typed input are stored, which stored session a run continues (-c, -r),
// and the recorder that writes a run's events to its session file.

import { join } from "node:path";
import type { ProviderSettings } from "../providers/index.ts";
import { isApiKind } from "../providers/wire-apis.ts";
import { loadInputHistory } from "../session/input-history-file.ts";
import { resumeProviderChoice } from "../session/resume-choice.ts";
import { SESSION_FORMAT_VERSION, type SessionHeader } from "../session/session-entry.ts";
import { forkSession } from "../session/session-fork.ts";
import { newSessionId } from "../session/session-id.ts";
import {
  findLatestSession,
  findSessionByPrefix,
  SessionLookupError,
  type SessionSummary,
  summarizeSessions,
} from "../session/session-list.ts";
import { type LockedSession, lockAndReadSession, SessionLockError } from "../session/session-lock.ts";
import { type SessionData, SessionReadError } from "../session/session-reader.ts";
import { SessionRecorder } from "../session/session-recorder.ts";
import { SessionWriter } from "../session/session-store.ts";
import { redactUrl } from "../shared/redact.ts";
import { VERSION } from "../shared/version.ts";
import { type ProviderChoice, stateDir } from "./defaults.ts";

export function sessionsDirFor(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "sessions");
}

/**
 * The exit code of a session that cannot be continued as asked, undefined for any other error:
 * 2 when there is none, it is ambiguous or unreadable (the command is wrong); 1 when another run
 * holds it or it cannot be locked (the command is right, the moment is not: the contract's
 * "the run failed", with the one line saying who holds it).
 */
export function sessionErrorExitCode(error: unknown): 1 | 2 | undefined {
  if (error instanceof SessionLookupError || error instanceof SessionReadError) return 2;
  if (error instanceof SessionLockError) return 1;
  return undefined;
}

/**
 * The session named by `--continue` or `--resume`, locked for this process, then read and
 * repaired; with `--fork`, a copy of it under a new id (the original is only read). Undefined
 * for a new session. Throws SessionLockError when another process holds it.
 */
export function loadResumeTarget(
  flags: { continue?: boolean; resume?: string; fork?: boolean },
  env: NodeJS.ProcessEnv,
  cwd: string,
): LockedSession | undefined {
  if (flags.continue && flags.resume !== undefined)
    throw new SessionLookupError("use either --continue or --resume, not both");
  const sessionsDir = sessionsDirFor(env);
  const found = flags.continue
    ? findLatestSession(sessionsDir, cwd)
    : flags.resume !== undefined
      ? findSessionByPrefix(sessionsDir, flags.resume)
      : undefined;
  if (!found) {
    if (flags.fork) throw new SessionLookupError("--fork goes with -c or -r <id>: it continues a copy of that session");
    return undefined;
  }
  return flags.fork ? forkSession(found.path) : lockAndReadSession(found.path);
}

/** Sessions `-r` without an id offers. */
const PICKED_FROM_SESSIONS = 10;

/**
 * What `-r` without an id offers: this folder's newest sessions, or, when it has none, the newest
 * of every folder (`isThisFolder` false), since a folder never used before is where a person most
 * likely comes to continue work begun elsewhere.
 */
export function sessionsToPick(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { summaries: SessionSummary[]; isThisFolder: boolean } {
  const here = summarizeSessions(sessionsDirFor(env), PICKED_FROM_SESSIONS, cwd).summaries;
  if (here.length > 0) return { summaries: here, isThisFolder: true };
  return { summaries: summarizeSessions(sessionsDirFor(env), PICKED_FROM_SESSIONS).summaries, isThisFolder: false };
}

/** Flags and environment, with a resumed session's provider and model as the defaults below them. */
export function providerChoiceFor(
  choice: ProviderChoice,
  env: NodeJS.ProcessEnv,
  resumed: SessionData | undefined,
): ProviderChoice {
  if (!resumed) return choice;
  // A wire API this version does not know (a hand-edited or newer file) is left to the config.
  return resumeProviderChoice(choice, env, { ...resumed, api: isApiKind(resumed.api) ? resumed.api : undefined });
}

/** Lines typed in earlier chats, oldest first, for the arrows. */
export function loadChatHistory(env: NodeJS.ProcessEnv): string[] {
  return loadInputHistory(historyPathFor(env));
}

export function historyPathFor(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "history");
}

/** Whether the settings are the ones the session used last (an older file without its API matches any). */
function isSameChoice(stored: SessionData, settings: ProviderSettings): boolean {
  return (
    stored.provider === settings.name &&
    stored.model === settings.model &&
    (stored.baseUrl || undefined) === (settings.baseUrl ? redactUrl(settings.baseUrl) : undefined) &&
    (stored.api === undefined || stored.api === settings.api)
  );
}

/**
 * The recorder for this run: appending to the resumed session, or a new one (created on its
 * first entry); a subagent's names its parent session and the task call that started it.
 */
export function startRecorder(
  env: NodeJS.ProcessEnv,
  cwd: string,
  settings: ProviderSettings,
  resumed: LockedSession | undefined,
  parent?: SessionHeader["parent"],
): SessionRecorder {
  if (resumed) {
    const writer = SessionWriter.resume(resumed.path, resumed.header, resumed.lock);
    const recorder = new SessionRecorder(writer, resumed.spent);
    // Resumed with other settings (`-c --api chat`): the file says so, and the next resume goes on with them.
    if (!isSameChoice(resumed, settings))
      recorder.recordModelChange(settings.name, settings.model, settings.baseUrl, settings.api);
    // Continued in another folder (the person chose to stay here, or gave --cwd): the next resume works here too.
    if (resumed.cwd !== cwd) recorder.recordFolderChange(cwd);
    return recorder;
  }
  const header = {
    type: "session" as const,
    version: SESSION_FORMAT_VERSION,
    id: newSessionId(),
    cwd,
    provider: settings.name,
    model: settings.model,
    baseUrl: settings.baseUrl && redactUrl(settings.baseUrl), // credentials in a URL are never stored
    api: settings.api,
    startedAt: new Date().toISOString(),
    harnessVersion: VERSION,
    ...(parent ? { parent } : {}),
  };
  return new SessionRecorder(SessionWriter.create(sessionsDirFor(env), header));
}
