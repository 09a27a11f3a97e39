// Finding sessions on disk: the latest one for a directory, one by id prefix, and a listing.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { splitHookContext } from "../core/hook-context.ts";
import { textOf } from "../core/messages.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { countOf } from "../shared/helpers.ts";
import type { SessionHeader } from "./session-entry.ts";
import { SESSION_ID_PATTERN } from "./session-id.ts";
import { liveOwnerOf } from "./session-lock.ts";
import { readSession } from "./session-reader.ts";
import { sessionPath } from "./session-store.ts";

/** Candidates named in an "ambiguous prefix" error. */
const AMBIGUOUS_SHOWN = 5;
/** Bytes read to find a header line; a header is a few hundred bytes. */
const HEADER_MAX_BYTES = 16 * 1024;
/** Characters of the first prompt shown in a listing. */
const PROMPT_PREVIEW_CHARS = 60;

/** A lookup that found no session, or more than one: the CLI prints it and exits 2. */
export class SessionLookupError extends Error {
  override name = "SessionLookupError";
}

/** One session file, newest activity first in listings. */
export interface SessionFile {
  id: string;
  path: string;
  /** Last write (the file's mtime), ms. */
  updatedAt: number;
}

/** Every session file in the folder, most recently written first (ties: newest id first). */
export function listSessionFiles(sessionsDir: string): SessionFile[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir);
  } catch {
    return []; // no sessions yet
  }
  const files: SessionFile[] = [];
  for (const name of names) {
    const id = name.slice(0, -".jsonl".length);
    if (!name.endsWith(".jsonl") || !SESSION_ID_PATTERN.test(id)) continue;
    const path = sessionPath(sessionsDir, id);
    try {
      files.push({ id, path, updatedAt: statSync(path).mtimeMs });
    } catch {
      // removed while we looked
    }
  }
  return files.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
}

/** Only the header line of a session file (cheap: reads the first few KiB). */
export function readSessionHeader(path: string): SessionHeader | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(HEADER_MAX_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_MAX_BYTES, 0);
    const end = buffer.subarray(0, read).indexOf(0x0a);
    if (end < 0) return undefined;
    const header = JSON.parse(buffer.subarray(0, end).toString("utf8")) as SessionHeader;
    return header.type === "session" ? header : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The marker of a `folder_change` line, as the recorder writes it (JSON.stringify keeps `type` first). */
const FOLDER_CHANGE_MARK = '{"type":"folder_change"';

/**
 * The folder a session works in now: its header's, unless a `folder_change` line moved it (rare,
 * so the file is searched for the marker, not parsed whole).
 */
function currentFolderOf(path: string, header: SessionHeader): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return header.cwd;
  }
  for (let at = text.lastIndexOf(FOLDER_CHANGE_MARK); at > 0; at = text.lastIndexOf(FOLDER_CHANGE_MARK, at - 1)) {
    if (text[at - 1] !== "\n") continue; // the words inside some message, not a line of its own
    const end = text.indexOf("\n", at);
    try {
      const { cwd } = JSON.parse(text.slice(at, end < 0 ? undefined : end)) as { cwd?: unknown };
      if (typeof cwd === "string") return cwd;
    } catch {
      // a torn last line: the one before it counts
    }
  }
  return header.cwd;
}

/**
 * The session last written to in this directory. "Latest" is by last activity, not start, so
 * `--continue` returns to the conversation the user was in, even an old one they had resumed.
 */
export function findLatestSession(sessionsDir: string, cwd: string, purpose = "continue"): SessionFile {
  for (const file of listSessionFiles(sessionsDir)) {
    const header = readSessionHeader(file.path);
    // A subagent's session is its parent's part.
    if (header && !header.parent && currentFolderOf(file.path, header) === cwd) return file;
  }
  throw new SessionLookupError(
    purpose === "continue"
      ? `no session to continue in ${cwd}; start one with harness (without -c)`
      : `no session to ${purpose} in ${cwd}: none has run in this folder yet (harness sessions lists every session with its id)`,
  );
}

/** The one session whose id starts with `prefix`. */
export function findSessionByPrefix(sessionsDir: string, prefix: string): SessionFile {
  const wanted = prefix.trim().toLowerCase();
  if (!wanted) throw new SessionLookupError("--resume needs a session id (see harness sessions)");
  const matches = listSessionFiles(sessionsDir).filter((file) => file.id.startsWith(wanted));
  const exact = matches.find((file) => file.id === wanted);
  if (exact) return exact;
  if (matches.length === 1) return matches[0];
  if (matches.length === 0)
    throw new SessionLookupError(`no session with id "${prefix}"; list them with harness sessions`);
  const shown = matches
    .slice(0, AMBIGUOUS_SHOWN)
    .map((file) => file.id)
    .join(", ");
  const more = matches.length > AMBIGUOUS_SHOWN ? `, and ${matches.length - AMBIGUOUS_SHOWN} more` : "";
  throw new SessionLookupError(`session id "${prefix}" is ambiguous: it matches ${shown}${more}; give more characters`);
}

/** What a listing shows of one session. */
export interface SessionSummary extends SessionFile {
  cwd: string;
  /** Prompts the user sent. */
  turns: number;
  firstPrompt: string;
  /** The pid of the live harness writing it now (its lock, session-lock.ts); continuing it is then refused. */
  inUseBy?: number;
  /** The plan proposed in plan mode, kept beside the session (tools/exit-plan-mode.ts), when there is one. */
  planFile?: string;
}

/** The newest `limit` sessions, read whole to count turns (bounded by `limit`). Unreadable files are left out. */
export function summarizeSessions(
  sessionsDir: string,
  limit: number,
  cwd?: string,
): { summaries: SessionSummary[]; more: number } {
  const summaries: SessionSummary[] = [];
  let more = 0;
  for (const file of listSessionFiles(sessionsDir)) {
    const header = readSessionHeader(file.path);
    if (!header || header.parent || (cwd !== undefined && currentFolderOf(file.path, header) !== cwd)) continue;
    if (summaries.length >= limit) {
      more++;
      continue;
    }
    try {
      const session = readSession(file.path);
      // From the entries, not the resumable conversation: after a compaction that starts with a summary.
      const prompts = session.entries.flatMap((entry) =>
        entry.type === "message" && entry.message.role === "user" ? [entry.message] : [],
      );
      // The person's words: what a hook added after them (hook-context.ts) is not their prompt.
      const first = prompts[0] ? splitHookContext(textOf(prompts[0])).said.replace(/\s+/g, " ").trim() : "";
      summaries.push({
        ...file,
        cwd: session.cwd,
        turns: prompts.length,
        firstPrompt: first.length > PROMPT_PREVIEW_CHARS ? `${first.slice(0, PROMPT_PREVIEW_CHARS - 1)}…` : first,
        inUseBy: liveOwnerOf(file.path)?.pid,
        ...planFileBeside(file.path, header.id),
      });
    } catch {
      // not a session we can read: not listed
    }
  }
  return { summaries, more };
}

/** A listing as text lines: id, time, directory, turns, "in use" when a live harness writes it, first prompt. */
export function formatSessionList(summaries: SessionSummary[]): string[] {
  return summaries.map((s) => {
    const time = formatLocalTime(new Date(s.updatedAt));
    const inUse =
      s.inUseBy === undefined ? "" : s.inUseBy === process.pid ? "  (this session)" : `  in use (pid ${s.inUseBy})`;
    // A title, folder or id comes from a session file, which another user or a model may have written.
    const plan = s.planFile ? `  (plan: ${s.planFile})` : "";
    return showControlChars(
      `${s.id}  ${time}  ${s.cwd}  ${countOf(s.turns, "turn")}${inUse}  ${s.firstPrompt}${plan}`,
      "",
    );
  });
}

/** The plan file in the folder named by the session's id, beside its file (where its spilled output goes too). */
function planFileBeside(sessionFile: string, id: string): { planFile?: string } {
  const planFile = join(dirname(sessionFile), id, "plan.md");
  return existsSync(planFile) ? { planFile } : {};
}

/** `2025-01-31 14:05` in local time: what a person compares with their clock. */
export function formatLocalTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}
