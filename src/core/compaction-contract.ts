// What always survives a compaction, whatever the summary says (the README's "Long sessions"):
// the user's requests (verbatim where short; the last one is the current request), the plan as
// the todo tool last set it, the Markdown plan last proposed (plan mode), and the ledger of files read and written. They are collected from
// the messages a compaction removes and from the note an earlier compaction left, and written at
// the top of the new note in a fixed form that the next compaction reads back. The instructions
// (system prompt, AGENTS.md) are never compacted: every request carries them whole. Open
// decisions are the summary's "Open decisions" section, which each later summary carries forward.
import { isAbsolute, relative } from "node:path";
import type { TodoItem } from "./event-schema.ts";
import { type Message, type ToolCallPart, textOf } from "./messages.ts";
import { parseArguments, type Tool } from "./tool.ts";

/** A user request longer than this is kept as its start and end (the whole is in the record). */
const REQUEST_MAX_CHARS = 2000;
/** All kept requests together: the first (the task) and the newest ones that fit. */
const REQUESTS_MAX_CHARS = 6000;
/** Files the ledger lists, the most recently touched first kept. */
const LEDGER_MAX_FILES = 200;

/** What a tool call read, wrote or set that a compaction keeps (from its tool's effects and plan). */
export interface CallFacts {
  reads: string[];
  writes: string[];
  plan?: TodoItem[];
  proposedPlan?: string;
}

/** Tells what a call touched; undefined for a call no tool of the run declares. */
export type FactsOfCall = (call: ToolCallPart) => CallFacts | undefined;

/** The facts that survive every compaction. */
export interface KeptFacts {
  /** The user's messages, oldest first, each verbatim or cut in the middle; `left` earlier ones did not fit. */
  requests: string[];
  leftOutRequests: number;
  /** The plan as the todo tool last set it. */
  plan?: TodoItem[];
  /** The Markdown plan last proposed to end plan mode (Tool.proposedPlan), whole. */
  proposedPlan?: string;
  /** Each file read or written (relative to the working folder when inside it), in the order first touched. */
  files: Map<string, { read: boolean; written: boolean }>;
}

const HEADINGS = {
  kept: "## Kept through every compaction",
  requests: "### The user's requests, oldest first (verbatim where short; the last one is the current request)",
  plan: "### The plan (todo), as last set",
  proposedPlan: "### The plan last proposed (Markdown, as a JSON string)",
  files: "### Files touched",
  summary: "## Summary of the removed part",
};

/** The facts of calls run by `tools` in `cwd`: their declared effects, and the plan a todo call set. */
export function factsOfCallWith(tools: Tool[], cwd: string): FactsOfCall {
  return (call) => {
    const tool = tools.find((candidate) => candidate.name === call.name);
    if (!tool) return undefined;
    const parsed = parseArguments(tool, call.arguments);
    if (!parsed.ok) return undefined;
    try {
      const effects = tool.effects?.(parsed.input, cwd) ?? {};
      const shown = (path: string) => {
        const inside = relative(cwd, path);
        return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
      };
      return {
        reads: (effects.reads ?? []).map(shown),
        writes: (effects.writes ?? []).map(shown),
        plan: tool.plan?.(parsed.input),
        proposedPlan: tool.proposedPlan?.(parsed.input),
      };
    } catch {
      return undefined; // a tool whose effects cannot be told for this input: nothing to list
    }
  };
}

/** The facts of `removed` (without the earlier note, if any) on top of those the earlier note kept. */
export function collectFacts(
  removed: Message[],
  factsOfCall: FactsOfCall | undefined,
  earlierNote?: string,
): KeptFacts {
  const facts: KeptFacts = earlierNote
    ? readFacts(earlierNote)
    : { requests: [], leftOutRequests: 0, files: new Map() };
  const failed = new Set(
    removed.flatMap((message) => (message.role === "tool" && message.isError ? [message.toolCallId] : [])),
  );
  for (const message of removed) {
    if (message.role === "user") facts.requests.push(clipMiddle(textOf(message), REQUEST_MAX_CHARS));
    if (message.role !== "assistant" || !factsOfCall) continue;
    for (const part of message.content) {
      if (part.type !== "tool_call" || failed.has(part.id)) continue;
      const call = factsOfCall(part);
      if (!call) continue;
      if (call.plan) facts.plan = call.plan;
      if (call.proposedPlan) facts.proposedPlan = call.proposedPlan;
      for (const path of call.reads) touch(facts.files, path, "read");
      for (const path of call.writes) touch(facts.files, path, "written");
    }
  }
  return bound(facts);
}

function touch(files: KeptFacts["files"], path: string, how: "read" | "written"): void {
  const entry = files.get(path) ?? { read: false, written: false };
  if (how === "read") entry.read = true;
  else entry.written = true;
  files.set(path, entry);
}

/** The first request and the newest that fit within REQUESTS_MAX_CHARS; the newest files. */
function bound(facts: KeptFacts): KeptFacts {
  const [first, ...rest] = facts.requests;
  const kept: string[] = [];
  let chars = first?.length ?? 0;
  for (let index = rest.length - 1; index >= 0 && chars + rest[index].length <= REQUESTS_MAX_CHARS; index--) {
    kept.unshift(rest[index]);
    chars += rest[index].length;
  }
  const files = [...facts.files].slice(-LEDGER_MAX_FILES);
  return {
    ...facts,
    requests: first === undefined ? [] : [first, ...kept],
    leftOutRequests: facts.leftOutRequests + rest.length - kept.length,
    files: new Map(files),
  };
}

/** The facts as the note shows them: JSON strings, so any text is one line and reads back exactly. */
export function renderFacts(facts: KeptFacts): string {
  const lines = [HEADINGS.kept, HEADINGS.requests];
  if (facts.leftOutRequests > 0)
    lines.push(`(${facts.leftOutRequests} earlier requests between the first and these are in the full record)`);
  for (const [index, request] of facts.requests.entries()) lines.push(`${index + 1}. ${JSON.stringify(request)}`);
  if (facts.plan) {
    lines.push(HEADINGS.plan);
    for (const item of facts.plan) lines.push(`- ${item.status}: ${JSON.stringify(item.content)}`);
  }
  if (facts.proposedPlan) lines.push(HEADINGS.proposedPlan, JSON.stringify(facts.proposedPlan));
  if (facts.files.size > 0) {
    lines.push(HEADINGS.files);
    for (const [path, { read, written }] of facts.files)
      lines.push(`- ${JSON.stringify(path)}: ${[read && "read", written && "written"].filter(Boolean).join(", ")}`);
  }
  return lines.join("\n");
}

/** Reads back the facts an earlier note rendered (renderFacts); what does not parse is left out. */
export function readFacts(note: string): KeptFacts {
  const facts: KeptFacts = { requests: [], leftOutRequests: 0, files: new Map() };
  let section = "";
  for (const line of note.split("\n")) {
    if (line.startsWith("#")) {
      section = line;
      if (line === HEADINGS.summary) break;
      if (line === HEADINGS.plan) facts.plan = [];
      continue;
    }
    const left = /^\((\d+) earlier requests/.exec(line);
    if (section === HEADINGS.requests && left) facts.leftOutRequests = Number(left[1]);
    const request = /^\d+\. (".*")$/.exec(line);
    if (section === HEADINGS.requests && request) facts.requests.push(parseString(request[1]));
    const item = /^- (pending|in_progress|done): (".*")$/.exec(line);
    if (section === HEADINGS.plan && item)
      facts.plan?.push({ status: item[1] as TodoItem["status"], content: parseString(item[2]) });
    if (section === HEADINGS.proposedPlan && line.startsWith('"')) facts.proposedPlan = parseString(line);
    const file = /^- (".*"): (read|written|read, written)$/.exec(line);
    if (section === HEADINGS.files && file)
      facts.files.set(parseString(file[1]), { read: file[2].includes("read"), written: file[2].includes("written") });
  }
  return facts;
}

/** The heading the summary goes under, after the facts. */
export const SUMMARY_HEADING = HEADINGS.summary;

function parseString(json: string): string {
  try {
    return String(JSON.parse(json));
  } catch {
    return json;
  }
}

function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)} [... ${text.length - 2 * half} characters cut; the whole is in the full record ...] ${text.slice(-half)}`;
}
