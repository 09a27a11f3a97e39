// The long-session case of `npm run bench`: 500 turns, each a bash call printing 20 KB, under a
// 32k-token window. The fake server reports usage as the request's size (chars/4, like the
// harness's own estimate) and answers the summary requests compaction makes. Prints request
// sizes per 100-turn block (they must stay bounded), the harness's own time per turn and its
// memory (RSS sampled at each request) per block.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { SUMMARY_SYSTEM_PROMPT } from "../src/core/compaction.ts";
import { type RecordedRequest, type ScriptStep, startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";

const TURNS = 500;
const OUTPUT_BYTES = 20_000;
const CONTEXT_WINDOW = 32_768;
const BLOCK = 100;
/** Upper bound on summary requests (one per turn at worst), so the script never runs out. */
const MAX_REQUESTS = 2 * TURNS + 1;

/** One request as the bench sees it: which turn it belongs to, its size, and the harness's state then. */
interface Sample {
  turn: number;
  isSummary: boolean;
  bytes: number;
  rssKb: number;
  request: RecordedRequest;
}

function rssOf(pid: number | undefined): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const isSummaryRequest = (request: RecordedRequest) =>
  request.body.messages?.[0]?.content === SUMMARY_SYSTEM_PROMPT && !request.body.tools;

export async function longSession() {
  const samples: Sample[] = [];
  let turn = 0;
  let pid: number | undefined;
  const step: ScriptStep = (request) => {
    const bytes = JSON.stringify(request.body).length;
    const usage = {
      prompt_tokens: Math.ceil(bytes / 4),
      completion_tokens: 30,
      total_tokens: Math.ceil(bytes / 4) + 30,
    };
    const isSummary = isSummaryRequest(request);
    samples.push({ turn, isSummary, bytes, rssKb: rssOf(pid), request });
    if (isSummary)
      return {
        reply: {
          text: `## Goal\nPrint ${OUTPUT_BYTES} bytes ${TURNS} times.\n## Next steps\nKeep going from turn ${turn}.`,
          usage,
        },
      };
    if (turn >= TURNS) return { reply: { text: "done", usage } };
    turn++;
    return {
      reply: {
        toolCalls: [
          {
            id: `call_${turn}`,
            name: "bash",
            arguments: { command: `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' a` },
          },
        ],
        usage,
      },
    };
  };
  const server = await startFakeLLM(Array.from({ length: MAX_REQUESTS }, () => step));
  const args = [
    ...fakeFlags(server),
    "-y",
    "--max-turns",
    String(TURNS + 10),
    "--context-window",
    String(CONTEXT_WINDOW),
    "--output",
    "stream-json",
    "-p",
    "go",
  ];
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: tempDir(),
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  pid = child.pid;
  const toolTimes: number[] = [];
  let compactions = 0;
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const event = JSON.parse(line);
      if (event.type === "tool_end") toolTimes.push(event.durationMs);
      if (event.type === "compaction") compactions++;
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const errors = [...server.errors];
  await server.close();

  // The harness's own time between an answer and the next request, tool run time taken out.
  const overheads: number[] = [];
  let tool = 0;
  for (let i = 1; i < samples.length; i++) {
    const previous = samples[i - 1];
    const gap = samples[i].request.receivedAt - (previous.request.answeredAt as number);
    const ranTool = !previous.isSummary && previous.turn < TURNS;
    overheads.push(gap - (ranTool ? (toolTimes[tool++] ?? 0) : 0));
  }
  return { samples, overheads, compactions, code, errors };
}

export function reportLongSession(
  result: Awaited<ReturnType<typeof longSession>>,
  stats: { median(values: number[]): number },
): void {
  const { samples, overheads, compactions, code, errors } = result;
  const turnRequests = samples.filter((s) => !s.isSummary);
  const summaries = samples.filter((s) => s.isSummary);
  console.log(
    `long session: ${TURNS} turns of ${OUTPUT_BYTES / 1000} KB bash output, ${CONTEXT_WINDOW} token window: ${compactions} compactions, ${summaries.length} summary requests, exit ${code}${errors.length ? `, server errors: ${errors.join("; ")}` : ""}`,
  );
  for (let from = 0; from < TURNS; from += BLOCK) {
    const block = turnRequests.filter((s) => s.turn >= from && s.turn < from + BLOCK);
    if (block.length === 0) continue;
    const bytes = block.map((s) => s.bytes);
    const indexes = block.map((s) => samples.indexOf(s)).filter((i) => i > 0);
    const ms = indexes.map((i) => overheads[i - 1]);
    console.log(
      `  turns ${from + 1}-${from + BLOCK}: request bytes min ${Math.min(...bytes)}, median ${stats.median(bytes)}, max ${Math.max(...bytes)}; ` +
        `own time per turn median ${stats.median(ms).toFixed(1)} ms; RSS median ${(stats.median(block.map((s) => s.rssKb)) / 1024).toFixed(1)} MB`,
    );
  }
  const summaryBytes = summaries.map((s) => s.bytes);
  if (summaryBytes.length)
    console.log(
      `  summary requests: bytes min ${Math.min(...summaryBytes)}, median ${stats.median(summaryBytes)}, max ${Math.max(...summaryBytes)}`,
    );
}
