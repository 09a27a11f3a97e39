// The continuity figure of `npm run bench` (issue #52): a scripted one-shot session whose server
// counts small tool steps at 3.7 times harness's estimate, under a small window so it must
// compact, and which of the compaction contract's facts (README, "Long sessions") every model
// request after the first compaction still carries. Also the compactions' count and how much
// each shrank the next request. `node --import tsx bench/continuity.ts` runs it alone;
// `BENCH_CLI=/other/checkout/bin/harness.js` measures another build.
import { spawn } from "node:child_process";
import { compactionSession, contractFacts, isSummaryRequest, PROMPT } from "../test/support/compaction-session.ts";
import { startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";

const STEPS = 300;
const WINDOW = 16_384;
/** The fake model ends the session after this many summary requests (a build that loops stops there). */
const MAX_SUMMARIES = 30;

export async function continuity() {
  const cwd = tempDir();
  const { script, counted } = compactionSession(cwd, {
    steps: STEPS,
    ratio: 3.7,
    notes: "ok\n",
    maxSummaries: MAX_SUMMARIES,
  });
  const server = await startFakeLLM(script);
  const args = [...fakeFlags(server), "--context-window", String(WINDOW), "-y", "--max-turns", String(STEPS + 10)];
  const child = spawn(process.execPath, [process.env.BENCH_CLI ?? CLI, ...args, "-p", PROMPT], {
    cwd,
    env: cleanEnv(),
    stdio: ["ignore", "ignore", "ignore"],
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  await server.close();
  const requests = server.requests;
  const first = requests.findIndex(isSummaryRequest);
  const after = first < 0 ? [] : requests.slice(first + 1).filter((request) => !isSummaryRequest(request));
  const carried = new Map<string, number>();
  for (const request of after)
    for (const [fact, isThere] of Object.entries(contractFacts(request)))
      carried.set(fact, (carried.get(fact) ?? 0) + (isThere ? 1 : 0));
  // The model request before each summary request and the one after it, in the fake's tokens.
  const shrinks = requests.flatMap((request, index) => {
    if (!isSummaryRequest(request)) return [];
    const before = requests
      .slice(0, index)
      .filter((r) => !isSummaryRequest(r))
      .at(-1);
    const next = requests.slice(index + 1).find((r) => !isSummaryRequest(r));
    return before && next ? [`${counted.tokens.get(before)}→${counted.tokens.get(next)}`] : [];
  });
  return { code, compactions: counted.summaries, steps: counted.step, after: after.length, carried, shrinks };
}

export function reportContinuity(result: Awaited<ReturnType<typeof continuity>>): void {
  const { code, compactions, steps, after, carried, shrinks } = result;
  const ended = compactions > MAX_SUMMARIES ? ` (the fake ended it at its bound of ${MAX_SUMMARIES})` : "";
  console.log(
    `continuity: ${STEPS} small tool steps at 3.7x the estimate, ${WINDOW}-token window: ${compactions} compactions${ended}, ${steps} steps run, exit ${code}`,
  );
  const shown = shrinks.length > 6 ? [...shrinks.slice(0, 3), "…", ...shrinks.slice(-2)] : shrinks;
  console.log(`  request tokens before → after each compaction: ${shown.join(", ")}`);
  const facts = [...carried].map(([fact, count]) => `${fact} ${count}/${after}`).join("; ");
  console.log(`  facts carried by the ${after} model requests after the first compaction: ${facts}`);
}

if (import.meta.url === `file://${process.argv[1]}`) reportContinuity(await continuity());
