// A session laid out for reading (the exports): prompts, replies with their tool calls paired
// with their results, and notes (interrupted, model switched, error, undo), in the order they happened.

import { dirname, join } from "node:path";
import {
  type AssistantMessage,
  assertNever,
  type ImagePart,
  type ToolCallPart,
  type ToolResultMessage,
  type Usage,
} from "../core/messages.ts";
import { formatTodoItem } from "../shared/helpers.ts";
import { SESSION_ID_PATTERN } from "./session-id.ts";
import { readSession, type SessionData } from "./session-reader.ts";

/** One thing to show, in order. */
export type TranscriptItem =
  | { type: "user"; text: string; images: ImagePart[]; at: string }
  | { type: "assistant"; message: AssistantMessage; results: Map<string, ToolResultMessage>; at: string }
  | { type: "note"; text: string; at: string }
  /** A subagent's run: its own session, read from beside this one (absent when gone or not this one's child). */
  | { type: "subagent"; agent: string; sessionId: string; child?: SessionData; at: string };

/** Subagent sessions nested in an export at most this deep (the depth config allows at most 5). */
const MAX_NESTED_SESSIONS = 5;

/** Characters of a tool call's arguments shown in its one-line label. */
const LABEL_CHARS = 100;

/** `depth`: how deep `session` is nested in an export; its subagents' sessions are read while below the bound. */
export function transcriptItems(session: SessionData, depth = 0): TranscriptItem[] {
  // Results come from the repaired conversation, so a call cut off by a crash shows why.
  // Results before a compaction are only in the entries (the resumable conversation starts at its summary).
  const results = new Map<string, ToolResultMessage>();
  for (const entry of session.entries)
    if (entry.type === "message" && entry.message.role === "tool") results.set(entry.message.toolCallId, entry.message);
  for (const message of session.messages) if (message.role === "tool") results.set(message.toolCallId, message);
  const items: TranscriptItem[] = [];
  for (const entry of session.entries) {
    switch (entry.type) {
      case "message": {
        const { message } = entry;
        if (message.role === "user") {
          const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
          items.push({
            type: "user",
            text,
            images: message.content.filter((part) => part.type === "image"),
            at: entry.at,
          });
        } else if (message.role === "assistant") items.push({ type: "assistant", message, results, at: entry.at });
        break; // tool results are shown with their calls
      }
      case "model_change":
        items.push({ type: "note", text: `model switched to ${entry.provider} · ${entry.model}`, at: entry.at });
        break;
      case "folder_change":
        items.push({ type: "note", text: `continued in ${entry.cwd}`, at: entry.at });
        break;
      case "interrupted":
        items.push({ type: "note", text: "interrupted by the user", at: entry.at });
        break;
      case "error":
        items.push({ type: "note", text: `error: ${entry.error}`, at: entry.at });
        break;
      case "compaction":
        items.push({
          type: "note",
          text: `context compacted (${entry.reason}): the model continued from this summary:\n\n${entry.summary}`,
          at: entry.at,
        });
        break;
      case "undo":
        items.push({
          type: "note",
          text: `undid the last ${entry.turns === 1 ? "turn" : `${entry.turns} turns`}${entry.restored ? " and restored the files from before" : ""}`,
          at: entry.at,
        });
        break;
      case "redo":
        items.push({ type: "note", text: "redid the undone turns", at: entry.at });
        break;
      case "todo":
        items.push({
          type: "note",
          text: `plan: ${entry.items.map(formatTodoItem).join("; ") || "cleared"}`,
          at: entry.at,
        });
        break;
      case "subagent":
        items.push({
          type: "subagent",
          agent: entry.agent,
          sessionId: entry.sessionId,
          at: entry.at,
          ...(depth < MAX_NESTED_SESSIONS ? definedChild(session, entry.sessionId) : {}),
        });
        break;
      case "network":
        // Refusals next to the command that met them; allowed connections stay in the file (and /network).
        if (!entry.allowed)
          items.push({
            type: "note",
            text: `network: refused ${entry.host}:${entry.port}${entry.command ? ` for ${entry.command}` : ""} (${entry.why ?? "refused"})`,
            at: entry.at,
          });
        break;
      case "usage":
      case "call_usage":
      case "turn":
      case "snapshot":
        break; // shown with each reply and in the totals; turn boundaries and snapshots are undo's bookkeeping
      default:
        assertNever(entry);
    }
  }
  return items;
}

/** The subagent's session beside `parent`'s file, if it is there, readable, and names `parent` as its parent. */
function definedChild(parent: SessionData, id: string): { child?: SessionData } {
  if (!SESSION_ID_PATTERN.test(id)) return {};
  try {
    const child = readSession(join(dirname(parent.path), `${id}.jsonl`));
    return child.header.parent?.sessionId === parent.header.id ? { child } : {};
  } catch {
    return {}; // gone or unreadable: the export names it only
  }
}

/** What a subagent item says in one line. */
export function subagentLabel(item: Extract<TranscriptItem, { type: "subagent" }>): string {
  return `subagent ${item.agent} ran as session ${item.sessionId}${item.child ? "" : " (its session file is not there)"}`;
}

/** `bash: ls -la`: the tool and the gist of its arguments (the first text value), on one line. */
export function toolCallLabel(call: ToolCallPart): string {
  let gist = call.arguments;
  try {
    const input: unknown = JSON.parse(call.arguments);
    if (input && typeof input === "object") {
      const first = Object.values(input).find((value) => typeof value === "string");
      if (typeof first === "string") gist = first;
    }
  } catch {
    // cut-off arguments: show them raw
  }
  gist = gist.replace(/\s+/g, " ").trim();
  return `${call.name}: ${gist.length > LABEL_CHARS ? `${gist.slice(0, LABEL_CHARS - 1)}…` : gist}`;
}

/** Arguments as indented JSON when they parse, raw otherwise. */
export function prettyArguments(call: ToolCallPart): string {
  try {
    return JSON.stringify(JSON.parse(call.arguments), null, 2);
  } catch {
    return call.arguments;
  }
}

export function formatUsage(usage: Usage): string {
  return `${usage.input} in · ${usage.output} out · ${usage.cacheRead} cache read · ${usage.cacheWrite} cache write`;
}

/** An image as a `data:` URL: how the HTML page shows it (self-contained), and Markdown an image kept inline. */
export function imageDataUrl(image: ImagePart): string {
  return `data:${image.mediaType};base64,${image.data}`;
}
