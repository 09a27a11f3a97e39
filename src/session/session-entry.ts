// The shape of a session file: one JSON object per line, each with a `type`. The first line is
// the header; every later line is one entry. Entries only ever get added (append-only).
import type { TodoItem } from "../core/event-schema.ts";
import type { Message, Usage } from "../core/messages.ts";

/** Bumped when a line's meaning changes; readers refuse files newer than they know. */
export const SESSION_FORMAT_VERSION = 1;

/**
 * The first line: who, where and with what the session started. Provider settings are kept so a
 * resumed session carries on with the same ones; an API key is never among them.
 */
export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  cwd: string;
  provider: string;
  model: string;
  baseUrl?: string;
  /** The wire API it spoke (`openai` = chat completions, `responses`, `anthropic`, `local`); absent in older files. */
  api?: string;
  startedAt: string;
  harnessVersion: string;
  /** The session this one is a copy of (`--fork`): it began as that one's history. */
  forkedFrom?: string;
  /** A subagent's session: the session and the task call that started it. `-c` and listings skip these. */
  parent?: { sessionId: string; toolCallId: string };
}

/** One line after the header. `at` is when it was written (ISO time). */
export type SessionEntry =
  /** A message appended to the conversation: user prompt, assistant reply or tool result. */
  | { type: "message"; at: string; message: Message }
  /** Tokens of one model call, or of subagents' calls on one model; `model` (absent in older files: the model then in use) prices them. */
  | { type: "usage"; at: string; usage: Usage; model?: string }
  /** The call in flight's tokens as the server counted them before its reply (Anthropic's message_start); its `usage` line, if it completes, counts them. */
  | { type: "call_usage"; at: string; usage: Usage; model: string }
  /** The chat switched model (`/model`), or a resume chose other settings; later replies come from this one. */
  | { type: "model_change"; at: string; provider: string; model: string; baseUrl?: string; api?: string }
  /**
   * The session goes on in another folder than the one it was in (a resume that chose to stay where
   * it was run, or an explicit --cwd): its tools work there from now on, and the next resume and
   * listing take this folder as the session's. The last one wins; the header keeps where it began.
   */
  | { type: "folder_change"; at: string; cwd: string }
  /** The user interrupted the turn; its partial reply (stopReason `aborted`) and tool results are above. */
  | { type: "interrupted"; at: string }
  /** A run begins (a prompt and all it led to): what undo counts as one turn. */
  | { type: "turn"; at: string }
  /**
   * The workspace's files just before this turn's first tool call that could change them: a
   * commit in the workspace's shadow repository under `$HARNESS_HOME/snapshots`.
   */
  | { type: "snapshot"; at: string; commit: string }
  /**
   * The last `turns` turns were undone: their messages leave the conversation (they stay above,
   * for redo and the record). The files went back to `restored` (absent when no undone turn had
   * a snapshot); `saved` holds the files as they were just before, for redo.
   */
  | { type: "undo"; at: string; turns: number; restored?: string; saved?: string }
  /** The latest undo still standing was reversed: its turns and their files are back. */
  | { type: "redo"; at: string }
  /** The run ended with an error (the reason as the user saw it). */
  | { type: "error"; at: string; error: string }
  /** A task call started a subagent, recorded in its own session file (whose header names this one). */
  | { type: "subagent"; at: string; toolCallId: string; agent: string; sessionId: string }
  /**
   * A sandboxed command's connection through the session's network proxy, or web_fetch's check,
   * with sandbox.network a list: allowed or refused (`why`), and the command that opened it
   * (`command`: as the bash tool ran it; `process`: the program that connected). docs/network.md.
   */
  | {
      type: "network";
      at: string;
      host: string;
      port: number;
      via: "http" | "connect";
      allowed: boolean;
      why?: string;
      command?: string;
      process?: string;
    }
  /** The model's plan changed (the todo tool): the whole list; the last one is the session's plan. */
  | { type: "todo"; at: string; items: TodoItem[] }
  /**
   * The conversation was compacted: from here on it is [summary, ...the last `keptMessages`
   * messages above]. The messages above stay in the file: the full history is never rewritten.
   */
  | {
      type: "compaction";
      at: string;
      summary: string;
      keptMessages: number;
      reason: string;
      tokensBefore: number;
      tokensAfter: number;
    };
