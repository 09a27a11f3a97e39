// Reads a session file back: the header, the entries, and the conversation to resume.
import { readFileSync } from "node:fs";
import { compactedMessages } from "../core/compaction.ts";
import { addUsage, EMPTY_USAGE, type Message, type Usage } from "../core/messages.ts";
import { repairTranscript } from "./repair-transcript.ts";
import { SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from "./session-entry.ts";

/** A session as read from disk. */
export interface SessionData {
  path: string;
  header: SessionHeader;
  entries: SessionEntry[];
  /** The conversation, repaired so that every tool call has a result (ready to send again). */
  messages: Message[];
  /** The provider and model in use at the end (the header's, or the last `/model` switch). */
  provider: string;
  model: string;
  baseUrl?: string;
  /** Tokens of every model call in the session. */
  usage: Usage;
  /** Things the user should hear about (a torn last line, unreadable lines), each said once. */
  notices: string[];
}

/** A file that is not a session we can read; the message says what is wrong. */
export class SessionReadError extends Error {
  override name = "SessionReadError";
}

export function readSession(path: string): SessionData {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SessionReadError(`cannot read session ${path}: ${(error as Error).message}`);
  }
  return parseSession(text, path);
}

/** Parses a session file's text. A torn last line is skipped with one notice; so are unreadable lines. */
export function parseSession(text: string, path: string): SessionData {
  const lines = text.split("\n");
  const isTorn = !text.endsWith("\n") && lines.at(-1) !== "";
  if (lines.at(-1) === "") lines.pop();
  const notices: string[] = [];
  let badLines = 0;
  const parsed: unknown[] = [];
  for (const [index, line] of lines.entries()) {
    try {
      parsed.push(JSON.parse(line));
    } catch {
      if (isTorn && index === lines.length - 1) notices.push(`session ${path}: skipped a torn last line (the harness stopped while writing it)`);
      else badLines++;
    }
  }
  if (badLines > 0) notices.push(`session ${path}: skipped ${badLines} unreadable line${badLines === 1 ? "" : "s"}`);

  const header = parsed.shift() as SessionHeader | undefined;
  if (!header || header.type !== "session" || typeof header.id !== "string") throw new SessionReadError(`${path} is not a harness session (no header line)`);
  if (header.version > SESSION_FORMAT_VERSION) {
    throw new SessionReadError(`session ${header.id} was written by a newer harness (format ${header.version}); upgrade harness to open it`);
  }

  const entries: SessionEntry[] = [];
  const messages: Message[] = [];
  let usage = EMPTY_USAGE;
  let current = { provider: header.provider, model: header.model, baseUrl: header.baseUrl };
  for (const value of parsed) {
    const entry = value as SessionEntry;
    switch (entry.type) {
      case "message":
        messages.push(entry.message);
        break;
      case "usage":
        usage = addUsage(usage, entry.usage);
        break;
      case "model_change":
        current = { provider: entry.provider, model: entry.model, baseUrl: entry.baseUrl };
        break;
      case "interrupted":
      case "error":
        break;
      case "compaction":
        // Resume from the compacted state; the messages before it stay in `entries` (the full history).
        // Repaired first: the loop compacted the repaired conversation a resume had loaded.
        messages.splice(0, messages.length, ...compactedMessages(entry.summary, entry.keptMessages > 0 ? repairTranscript(messages).slice(-entry.keptMessages) : []));
        break;
      default:
        // A line type from a newer harness (or a later feature such as compaction): kept, not understood.
        continue;
    }
    entries.push(entry);
  }
  return { path, header, entries, messages: repairTranscript(messages), ...current, usage, notices };
}
