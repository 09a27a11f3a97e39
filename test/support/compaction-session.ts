// A scripted session that compacts, for test/cli/context-progress.test.ts and the continuity figure
// of `npm run bench` (bench/continuity.ts): a todo call, a write_file, then read_file steps of a
// small file, against a fake server whose token counts are above harness's estimate (small tool
// steps, CJK text), and a check of which of the compaction contract's facts a request carries.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction.ts";
import type { RecordedRequest, ScriptStep } from "./fake-llm/server.ts";

export const PROMPT = "Walk through notes.txt step by step; keep the plan current. MARKER-PROMPT-7f3a";
const AGENTS_MARKER = "MARKER-AGENTS-51c2";
const PLAN = [
  { content: "read the notes MARKER-PLAN-1", status: "in_progress" },
  { content: "write the report MARKER-PLAN-2", status: "pending" },
];
const WRITTEN = "src/report-marker-e41.ts";

/** A compaction's summary request: no tools, the summariser's prompt (its first line, so an older build's is known too). */
export const isSummaryRequest = (request: RecordedRequest) =>
  !request.body.tools && String(request.body.messages?.[0]?.content).startsWith(SUMMARY_SYSTEM_PROMPT.split(".")[0]);

/** What harness's estimate would say of a piece of text: four characters a token. */
const charsOver4 = (text: string) => Math.ceil(text.length / 4);

/**
 * A server's tokenizer, as the fake counts it: CJK characters one token each, the rest at
 * `ratio` times harness's estimate (small tool steps, short identifiers), the system prompt
 * and tool schemas at the estimate. Counted over the chat-completions body's own fields.
 */
export function serverTokens(body: any, ratio: number): number {
  let tokens = charsOver4(JSON.stringify(body.tools ?? []));
  for (const message of body.messages) {
    const texts: string[] = [typeof message.content === "string" ? message.content : JSON.stringify(message.content)];
    for (const call of message.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
    for (const text of texts) {
      const cjk = text.match(/[\u3040-\u30ff\u3400-\u9fff]/g)?.length ?? 0;
      const rest = text.length - cjk;
      tokens += cjk + (message.role === "system" ? charsOver4(" ".repeat(rest)) : Math.ceil((rest / 4) * ratio));
    }
    tokens += message.role === "system" ? 4 : Math.ceil(4 * ratio);
  }
  return tokens;
}

/** The session's plan: `steps` read_file calls after a todo and a write_file, then "done". */
export interface CompactionSession {
  steps: number;
  /** The server's count over harness's estimate, for text that is not CJK. */
  ratio: number;
  /** What the file the steps read holds (what read_file returns to the model). */
  notes: string;
  /** Summary requests after which the model ends the session: a liveness bound. */
  maxSummaries: number;
}

/** Writes the workspace (AGENTS.md, notes.txt) and returns the script and what it counted. */
export function compactionSession(cwd: string, { steps, ratio, notes, maxSummaries }: CompactionSession) {
  writeFileSync(join(cwd, "AGENTS.md"), `${AGENTS_MARKER}: answer in British English.\n`);
  writeFileSync(join(cwd, "notes.txt"), notes);
  const counted = { step: 0, summaries: 0, tokens: new Map<RecordedRequest, number>() };
  const reply = (request: RecordedRequest): ScriptStep => {
    const count = serverTokens(request.body, ratio);
    counted.tokens.set(request, count);
    const usage = { prompt_tokens: count, completion_tokens: 20, total_tokens: count + 20 };
    if (isSummaryRequest(request)) {
      counted.summaries++;
      return {
        reply: { text: `## Goal\nWalk through the notes.\n## Next steps\nGo on from step ${counted.step}.`, usage },
      };
    }
    if (counted.summaries > maxSummaries || counted.step >= steps + 2) return { reply: { text: "done", usage } };
    const step = ++counted.step;
    const id = `call_${step}`;
    if (step === 1) return { reply: { toolCalls: [{ id, name: "todo", arguments: { items: PLAN } }], usage } };
    if (step === 2)
      return {
        reply: { toolCalls: [{ id, name: "write_file", arguments: { path: WRITTEN, content: "x\n" } }], usage },
      };
    return { reply: { toolCalls: [{ id, name: "read_file", arguments: { path: "notes.txt" } }], usage } };
  };
  const script = Array.from({ length: 2 * steps + maxSummaries + 10 }, () => reply);
  return { script, counted };
}

/** The contract's facts (README, "Long sessions") and whether a model request carries each. */
export function contractFacts(request: RecordedRequest): Record<string, boolean> {
  const text = JSON.stringify(request.body);
  return {
    "instructions (AGENTS.md)": text.includes(AGENTS_MARKER),
    "the user's last request": text.includes("MARKER-PROMPT-7f3a"),
    "the plan": text.includes("MARKER-PLAN-1") && text.includes("MARKER-PLAN-2"),
    "the files touched": text.includes(WRITTEN),
    "told of the compaction": /compacted/i.test(text),
  };
}
