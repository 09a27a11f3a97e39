// Reads a session file back: the header, the entries, and the conversation to resume.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { compactedMessages } from "../core/compaction.ts";
import type { TodoItem } from "../core/event-schema.ts";
import { addSpent, addUsage, EMPTY_USAGE, type Message, type ModelUsage, type Usage } from "../core/messages.ts";
import { countOf } from "../shared/helpers.ts";
import { repairTranscript } from "./repair-transcript.ts";
import { SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from "./session-entry.ts";
import { loadImages } from "./session-images.ts";

/** A session as read from disk. */
export interface SessionData {
  path: string;
  header: SessionHeader;
  entries: SessionEntry[];
  /** The conversation, repaired so that every tool call has a result (ready to send again). */
  messages: Message[];
  /** The provider, model and wire API in use at the end (the header's, or the last `/model` switch). */
  provider: string;
  model: string;
  baseUrl?: string;
  api?: string;
  /** The folder the session works in: the header's, or the last `folder_change`'s. */
  cwd: string;
  /** Tokens of every model call in the session. */
  usage: Usage;
  /** The same, by the model that spent them (to price each at its own). */
  spent: ModelUsage[];
  /** The turns in the conversation now, oldest first (undone ones left out): what undo can take back. */
  turns: TurnRecord[];
  /** The undo a redo would reverse; absent when there is none, or a turn was run since. */
  redo?: { turns: number; saved?: string; restored?: string };
  /** The model's plan as the last todo call left it (empty when it never made one). */
  todo: TodoItem[];
  /** Things the user should hear about (a torn last line, unreadable lines), each said once. */
  notices: string[];
}

/**
 * One turn as undo sees it: the snapshot of the files before it changed any, if it did, and the
 * one taken when it ended (absent for a turn that was killed, or recorded by an older harness), so
 * that undo can tell the turn's changes from what someone else changed after it.
 */
export interface TurnRecord {
  snapshot?: string;
  after?: string;
}

/** A turn while reading: where the conversation stood when it began. */
interface OpenTurn extends TurnRecord {
  messages: Message[];
  length: number;
}

/** A file that is not a session we can read; the message says what is wrong. */
export class SessionReadError extends Error {
  override name = "SessionReadError";
}

export function readSession(path: string): SessionData {
  return parseSession(readSessionText(path), path);
}

/** A session file's text; throws SessionReadError when it cannot be read. */
export function readSessionText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new SessionReadError(`cannot read session ${path}: ${(error as Error).message}`);
  }
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
      if (isTorn && index === lines.length - 1)
        notices.push(`session ${path}: skipped a torn last line (the harness stopped while writing it)`);
      else badLines++;
    }
  }
  if (badLines > 0) notices.push(`session ${path}: skipped ${countOf(badLines, "unreadable line")}`);

  const header = parsed.shift() as SessionHeader | undefined;
  if (header?.type !== "session" || typeof header.id !== "string")
    throw new SessionReadError(`${path} is not a harness session (no header line)`);
  if (header.version > SESSION_FORMAT_VERSION) {
    throw new SessionReadError(
      `session ${header.id} was written by a newer harness (format ${header.version}); upgrade harness to open it`,
    );
  }

  const entries: SessionEntry[] = [];
  // Arrays are only ever appended to or replaced, so a turn's (array, length) is where it began.
  let messages: Message[] = [];
  const turns: OpenTurn[] = [];
  const undone: Array<{ messages: Message[]; turns: OpenTurn[]; saved?: string; restored?: string }> = [];
  let usage = EMPTY_USAGE;
  let spent: ModelUsage[] = [];
  let current = { provider: header.provider, model: header.model, baseUrl: header.baseUrl, api: header.api };
  let todo: TodoItem[] = [];
  let cwd = header.cwd;
  for (const value of parsed) {
    let entry = value as SessionEntry;
    switch (entry.type) {
      case "message":
        entry = { ...entry, message: loadImages(entry.message, dirname(path)) };
        messages.push(entry.message);
        break;
      case "usage":
        usage = addUsage(usage, entry.usage);
        spent = addSpent(spent, entry.model ?? current.model, entry.usage);
        break;
      case "model_change":
        current = { provider: entry.provider, model: entry.model, baseUrl: entry.baseUrl, api: entry.api };
        break;
      case "folder_change":
        cwd = entry.cwd;
        break;
      case "turn":
        turns.push({ messages, length: messages.length });
        undone.length = 0; // a new turn after an undo: nothing left to redo
        break;
      case "snapshot": {
        const turn = turns.at(-1);
        // The first snapshot of a turn is taken before its first change; a later one, as it ended.
        if (turn && turn.snapshot === undefined) turn.snapshot = entry.commit;
        else if (turn) turn.after = entry.commit;
        break;
      }
      case "undo": {
        const count = Math.min(entry.turns, turns.length);
        if (count === 0) break;
        const taken = turns.splice(turns.length - count, count);
        undone.push({ messages, turns: taken, saved: entry.saved, restored: entry.restored });
        messages = taken[0].messages.slice(0, taken[0].length);
        break;
      }
      case "redo": {
        const last = undone.pop();
        if (!last) break;
        messages = last.messages;
        turns.push(...last.turns);
        break;
      }
      case "todo":
        todo = entry.items;
        break;
      case "interrupted":
      case "error":
      case "call_usage":
      case "subagent":
      case "network":
        break;
      case "compaction":
        // Resume from the compacted state; the messages before it stay in `entries` (the full history).
        // Repaired first: the loop compacted the repaired conversation a resume had loaded.
        messages = compactedMessages(
          entry.summary,
          entry.keptMessages > 0 ? repairTranscript(messages).slice(-entry.keptMessages) : [],
        );
        break;
      default:
        // A line type from a newer harness (or a later feature such as compaction): kept, not understood.
        continue;
    }
    entries.push(entry);
  }
  const redoable = undone.at(-1);
  const redo = redoable
    ? {
        turns: redoable.turns.length,
        ...(redoable.saved ? { saved: redoable.saved } : {}),
        ...(redoable.restored ? { restored: redoable.restored } : {}),
      }
    : undefined;
  return {
    path,
    header,
    entries,
    messages: repairTranscript(messages),
    ...current,
    cwd,
    usage,
    spent,
    turns: turns.map(({ snapshot, after }) => ({ ...(snapshot ? { snapshot } : {}), ...(after ? { after } : {}) })),
    ...(redo ? { redo } : {}),
    todo,
    notices,
  };
}
