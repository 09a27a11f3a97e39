// Compaction makes progress through the built CLI, against a server whose token counts are well
// above the harness's own estimate (4 characters a token): many small tool steps, and CJK text.
// Before this was fixed a 500-step session compacted every two or three steps from step ~370 on,
// each time removing a handful of messages, with the request as large as before (issue #52).
// Each session is bounded: the fake model ends the run after MAX_SUMMARIES summary requests, so a
// regression fails on the count instead of running for ever.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { SUMMARY_SYSTEM_PROMPT } from "../src/core/compaction.ts";
import { startFakeLLM, type FakeLLM, type RecordedRequest, type ScriptStep } from "./fake-llm/server.ts";
import { cleanEnv, fakeFlags, jsonLines, runCli, tempDir } from "./helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

/** Summary requests after which the fake model ends the session: far above what a working harness needs. */
const MAX_SUMMARIES = 12;
const PROMPT = "Walk through notes.txt step by step; keep the plan current. MARKER-PROMPT-7f3a";
const AGENTS_MARKER = "MARKER-AGENTS-51c2: answer in British English.";
const PLAN = [
  { content: "read the notes MARKER-PLAN-1", status: "in_progress" },
  { content: "write the report MARKER-PLAN-2", status: "pending" },
];
const WRITTEN = "src/report-marker-e41.ts";

const isSummary = (request: RecordedRequest) =>
  request.body.messages?.[0]?.content === SUMMARY_SYSTEM_PROMPT && !request.body.tools;

/** What harness's estimate would say of a piece of text: four characters a token. */
const charsOver4 = (text: string) => Math.ceil(text.length / 4);

/**
 * A server's tokenizer, as the fake counts it: CJK characters one token each, the rest at
 * `ratio` times harness's estimate (small tool steps, short identifiers), the system prompt
 * and tool schemas at the estimate. Counted over the chat-completions body's own fields.
 */
function serverTokens(body: any, ratio: number): number {
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

interface Session {
  steps: number;
  ratio: number;
  /** What each step's file holds (what read_file returns to the model). */
  notes: string;
  window?: number;
}

/**
 * A one-shot session: a todo call, a write_file, then `steps` read_file calls of a small file,
 * then "done". Usage is the fake tokenizer's count of each request.
 */
async function runSession({ steps, ratio, notes, window }: Session) {
  const cwd = tempDir();
  writeFileSync(join(cwd, "AGENTS.md"), `${AGENTS_MARKER}\n`);
  writeFileSync(join(cwd, "notes.txt"), notes);
  let step = 0;
  let summaries = 0;
  const tokens = new Map<RecordedRequest, number>();
  const reply = (request: RecordedRequest): ScriptStep => {
    const count = serverTokens(request.body, ratio);
    tokens.set(request, count);
    const usage = { prompt_tokens: count, completion_tokens: 20, total_tokens: count + 20 };
    if (isSummary(request)) {
      summaries++;
      return { reply: { text: `## Goal\nWalk through the notes.\n## Next steps\nGo on from step ${step}.`, usage } };
    }
    if (summaries > MAX_SUMMARIES || step >= steps + 2) return { reply: { text: "done", usage } };
    step++;
    const id = `call_${step}`;
    if (step === 1) return { reply: { toolCalls: [{ id, name: "todo", arguments: { items: PLAN } }], usage } };
    if (step === 2)
      return {
        reply: { toolCalls: [{ id, name: "write_file", arguments: { path: WRITTEN, content: "x\n" } }], usage },
      };
    return { reply: { toolCalls: [{ id, name: "read_file", arguments: { path: "notes.txt" } }], usage } };
  };
  server = await startFakeLLM(Array.from({ length: 2 * steps + MAX_SUMMARIES + 10 }, () => reply));
  const env = cleanEnv();
  const windowFlags = window ? ["--context-window", String(window)] : [];
  const result = await runCli(
    [
      ...fakeFlags(server),
      ...windowFlags,
      "-y",
      "--max-turns",
      String(steps + 10),
      "--output",
      "stream-json",
      "-p",
      PROMPT,
    ],
    { env, cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const requests = server.requests.map((request) => ({
    request,
    isSummary: isSummary(request),
    tokens: tokens.get(request) as number,
    bytes: JSON.stringify(request.body).length,
  }));
  return { events, requests, summaries, cwd, env };
}

/**
 * The requests around each compaction: the model request before its summary request and the
 * one after it. Each must be smaller, and small enough that the next compaction is far away.
 */
function aroundCompactions(requests: Awaited<ReturnType<typeof runSession>>["requests"]) {
  const pairs: Array<{ before: number; after: number; beforeBytes: number; afterBytes: number }> = [];
  requests.forEach((entry, index) => {
    if (!entry.isSummary) return;
    const before = requests
      .slice(0, index)
      .reverse()
      .find((r) => !r.isSummary);
    const after = requests.slice(index + 1).find((r) => !r.isSummary);
    if (before && after)
      pairs.push({ before: before.tokens, after: after.tokens, beforeBytes: before.bytes, afterBytes: after.bytes });
  });
  return pairs;
}

function assertProgress(
  session: Awaited<ReturnType<typeof runSession>>,
  window: number,
  maxCompactions: number,
  label: string,
) {
  const { events, requests, summaries } = session;
  const pairs = aroundCompactions(requests);
  const figures = `${label}: ${summaries} compactions; tokens before → after: ${pairs.map((p) => `${p.before}→${p.after} (${p.beforeBytes}→${p.afterBytes} bytes)`).join(", ")}`;
  console.log(figures);
  const done = events.at(-1);
  assert.equal(done.type, "done");
  assert.equal(done.reason, "stop", figures);
  assert.ok(summaries >= 1, `the session compacted at least once: ${figures}`);
  assert.ok(summaries <= maxCompactions, `at most ${maxCompactions} compactions: ${figures}`);
  for (const pair of pairs) {
    assert.ok(pair.after < pair.before, `each compaction shrinks the next request: ${figures}`);
    assert.ok(pair.after < 0.6 * window, `the request after a compaction is well under the window: ${figures}`);
  }
}

/** The contract's facts, in every model request after the first compaction. */
function assertContract(session: Awaited<ReturnType<typeof runSession>>) {
  const { requests } = session;
  const first = requests.findIndex((r) => r.isSummary);
  const later = requests.slice(first + 1).filter((r) => !r.isSummary);
  assert.ok(later.length > 0);
  for (const { request } of later) {
    const text = JSON.stringify(request.body);
    const where = `request ${server.requests.indexOf(request) + 1}`;
    assert.ok(text.includes("MARKER-AGENTS-51c2"), `${where} carries the instructions (AGENTS.md)`);
    assert.ok(text.includes("MARKER-PROMPT-7f3a"), `${where} carries the user's last request`);
    assert.ok(text.includes("MARKER-PLAN-1") && text.includes("MARKER-PLAN-2"), `${where} carries the plan`);
    assert.ok(text.includes(WRITTEN), `${where} carries the ledger of files touched`);
    assert.match(text, /compacted/i, `${where} tells the model a compaction happened`);
  }
}

test("many small tool steps counted at 3.7x the estimate: few compactions, each shrinking the request, the contract kept", async () => {
  const window = 32_768; // harness's default for a model it does not know, as in the issue
  const session = await runSession({ steps: 500, ratio: 3.7, notes: "ok\n" });
  assertProgress(session, window, 5, "small tool steps, 3.7x");
  assertContract(session);
});

test("a CJK-heavy session (a token per character): few compactions, each shrinking the request, the contract kept", async () => {
  const window = 16_000;
  const notes = `${"長い会話でも文脈を保つための記録です。".repeat(6)}\n`;
  const session = await runSession({ steps: 160, ratio: 1, notes, window });
  assertProgress(session, window, 5, "CJK notes");
  assertContract(session);
  // The note points to the full record: the session file, and the removed part as text, which
  // holds the calls it replaced and lies where read_file may read it (the session's spill folder).
  const note: string = session.requests.at(-1)?.request.body.messages[1].content;
  const sessionFile = /the session file (\S+\.jsonl) holds every message/.exec(note)?.[1] ?? "";
  assert.ok(sessionFile.startsWith(session.env.HARNESS_HOME as string), note);
  assert.match(readFileSync(sessionFile, "utf8"), /"type":"compaction"/);
  const removed = /what this note replaced is in (\S+) \(read it with read_file/.exec(note)?.[1] ?? "";
  assert.ok(removed.startsWith(join(sessionFile.slice(0, -".jsonl".length), "spill")), note);
  assert.match(readFileSync(removed, "utf8"), /\[tool call read_file\] \{"path":"notes.txt"\}/);
});
