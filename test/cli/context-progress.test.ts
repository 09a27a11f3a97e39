// Compaction makes progress through the built CLI, against a server whose token counts are well
// above the harness's own estimate (4 characters a token): many small tool steps, and CJK text.
// Before this was fixed a 500-step session compacted every two or three steps from step ~370 on,
// each time removing a handful of messages, with the request as large as before (issue #52).
// Each session is bounded: the fake model ends the run after MAX_SUMMARIES summary requests, so a
// regression fails on the count instead of running for ever.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import {
  type CompactionSession,
  compactionSession,
  contractFacts,
  isSummaryRequest,
  PROMPT,
} from "../support/compaction-session.ts";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, jsonLines, runCli, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

/** Summary requests after which the fake model ends the session: far above what a working harness needs. */
const MAX_SUMMARIES = 12;

/** A one-shot session of compactionSession's script; usage is the fake tokenizer's count of each request. */
async function runSession(plan: Omit<CompactionSession, "maxSummaries">, window?: number) {
  const cwd = tempDir();
  const { script, counted } = compactionSession(cwd, { ...plan, maxSummaries: MAX_SUMMARIES });
  server = await startFakeLLM(script);
  const env = cleanEnv();
  const windowFlags = window ? ["--context-window", String(window)] : [];
  const maxTurns = ["--max-turns", String(plan.steps + 10)];
  const result = await runCli(
    [...fakeFlags(server), ...windowFlags, "-y", ...maxTurns, "--output", "stream-json", "-p", PROMPT],
    { env, cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const requests = server.requests.map((request) => ({
    request,
    isSummary: isSummaryRequest(request),
    tokens: counted.tokens.get(request) as number,
    bytes: JSON.stringify(request.body).length,
  }));
  return { events, requests, summaries: counted.summaries, cwd, env };
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
    const facts = contractFacts(request);
    assert.deepEqual(
      Object.keys(facts).filter((fact) => !facts[fact]),
      [],
      `request ${server.requests.indexOf(request) + 1} carries every fact`,
    );
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
  const session = await runSession({ steps: 160, ratio: 1, notes }, window);
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
