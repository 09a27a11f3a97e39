// Turns the agent's event stream into session entries. It is one more consumer of the same
// events the terminal draws: messages are written the moment they complete, and the file is
// flushed to disk at the end of every turn.

import { dirname } from "node:path";
import type { AgentEvent } from "../core/events.ts";
import { addSpent, addUsage, assertNever, EMPTY_USAGE, type ModelUsage, type Usage } from "../core/messages.ts";
import { redactUrl } from "../shared/redact.ts";
import type { SessionEntry } from "./session-entry.ts";
import { storeImages } from "./session-images.ts";
import type { SessionWriter } from "./session-store.ts";

/** Records one session's events; `spent` is the running total by model (a resumed session's included). */
export class SessionRecorder {
  /** This session's tool calls so far (a subagent's link is written for its own calls only). */
  private readonly ownCalls = new Set<string>();
  /** The model of the run being recorded (its start event's): a usage event that names none is its. */
  private model = "";

  constructor(
    readonly writer: SessionWriter,
    public spent: ModelUsage[] = [],
  ) {}

  /** Every token the session spent, whichever model spent it. */
  get usage(): Usage {
    return this.spent.reduce((total, entry) => addUsage(total, entry.usage), EMPTY_USAGE);
  }

  get id(): string {
    return this.writer.id;
  }

  /** Why the session file could not be written, once that happened (nothing is written after). */
  get failure(): string | undefined {
    return this.writer.failure;
  }

  record(event: AgentEvent): void {
    const at = new Date().toISOString();
    switch (event.type) {
      case "message":
        this.writer.append({
          type: "message",
          at,
          message: storeImages(event.message, dirname(this.writer.path), this.writer.id),
        });
        break;
      case "usage":
        this.spent = addSpent(this.spent, event.model ?? this.model, event.usage);
        this.writer.append({ type: "usage", at, usage: event.usage, model: event.model ?? this.model });
        break;
      case "call_usage":
        // Written at once: the one record of a call that a kill cuts off (batch spend, docs/batch.md).
        this.writer.append({ type: "call_usage", at, usage: event.usage, model: event.model });
        break;
      case "turn_start":
        this.writer.flush(); // the previous turn's reply and tool results are complete
        break;
      case "todo":
        this.writer.append({ type: "todo", at, items: event.items });
        break;
      case "compaction":
        this.writer.append({
          type: "compaction",
          at,
          summary: event.summary,
          keptMessages: event.keptMessages,
          reason: event.reason,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
        });
        this.writer.flush(); // a resume must not see the summary's usage without the summary
        break;
      case "done":
        if (event.reason === "aborted") this.writer.append({ type: "interrupted", at });
        else if (event.reason === "error" && event.error) this.writer.append({ type: "error", at, error: event.error });
        this.writer.flush();
        break;
      case "start":
        this.model = event.model;
        this.writer.append({ type: "turn", at }); // where undo takes a turn back to
        break;
      case "subagent":
        // The child's session file records its run; this one, where it starts, links to it. A
        // grandchild's events pass through too, but its link is in its own parent's file.
        if (event.event.type === "start" && event.event.sessionId && this.ownCalls.has(event.parentToolCallId))
          this.writer.append({
            type: "subagent",
            at,
            toolCallId: event.parentToolCallId,
            agent: event.agent,
            sessionId: event.event.sessionId,
          });
        break;
      case "tool_start":
        this.ownCalls.add(event.id);
        break;
      case "text_delta":
      case "thinking_delta":
      case "prompt_progress":
      case "tool_output":
      case "tool_end":
      case "retry":
      case "compaction_stopped": // the run's own state: a resumed run measures its compactions afresh
        break; // in flight or repeated in the messages: not stored
      default:
        assertNever(event);
    }
  }

  /** A `/model` switch, or a resume with other settings: replies from here on come from this model. */
  recordModelChange(provider: string, model: string, baseUrl: string | undefined, api: string): void {
    this.writer.append({
      type: "model_change",
      at: new Date().toISOString(),
      provider,
      model,
      ...(baseUrl ? { baseUrl: redactUrl(baseUrl) } : {}),
      api,
    });
    this.writer.flush();
  }

  /** The session goes on in `cwd` from now on (see SessionEntry `folder_change`). */
  recordFolderChange(cwd: string): void {
    this.writer.append({ type: "folder_change", at: new Date().toISOString(), cwd });
    this.writer.flush();
  }

  /** The workspace's files before the running turn changes any (see SessionEntry `snapshot`). */
  recordSnapshot(commit: string): void {
    this.writer.append({ type: "snapshot", at: new Date().toISOString(), commit });
  }

  /** A connection through the network proxy (see SessionEntry `network`); written with the turn's other lines. */
  recordConnection(entry: Omit<Extract<SessionEntry, { type: "network" }>, "type">): void {
    this.writer.append({ type: "network", ...entry });
  }

  /** An undo or redo (a line of its own, written at once: the files have already changed). */
  recordUndo(entry: Extract<SessionEntry, { type: "undo" | "redo" }>): void {
    this.writer.append(entry);
    this.writer.flush();
  }

  close(): void {
    this.writer.close();
  }
}
