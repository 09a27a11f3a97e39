// Where start-up goes (issue 52: "the profile that explains what remains"): the built CLI runs
// `-p hi` against the fake with V8's CPU profiler on, RUNS times; each profile is cut at the
// first sample inside Node's HTTP client (the first request being written), and the time before
// it is split by kind: compiling harness's modules, Node's own bootstrap, garbage collection,
// starting processes, file system calls, and harness's code by source folder (a bundle's lines
// are mapped back through the `// src/...` comments esbuild leaves). Medians per kind.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLLM } from "../test/support/fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "../test/support/helpers.ts";

const RUNS = 5;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which source file each line of a bundled chunk came from, by esbuild's `// path` comments. */
function sourceLines(file: string, cache: Map<string, string[]>): string[] {
  const known = cache.get(file);
  if (known) return known;
  let current = "(bundle)";
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => {
      const marker = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(line);
      if (marker) current = marker[1];
      return current;
    });
  cache.set(file, lines);
  return lines;
}

const NODE_BOOT = /^node:internal\/(bootstrap|process\/pre_execution|main)/;

/**
 * The kind a sample belongs to, from its stack (leaf first): the collector and the compiler by
 * the leaf; otherwise the innermost frame of harness's bundle, so Node's own functions it calls
 * (realpathSync, spawn) count as that source file's folder; otherwise Node's loader or start-up.
 */
function kindOf(stack: CallFrame[], lines: Map<string, string[]>): string {
  const [leaf] = stack;
  if (leaf.functionName === "(garbage collector)") return "garbage collection";
  if (leaf.functionName === "compileSourceTextModule" || leaf.functionName === "compileFunction")
    return "compiling harness's modules";
  const ours = stack.find((frame) => frame.url.includes("/dist/"));
  if (ours) {
    const source = sourceLines(ours.url.replace("file://", ""), lines)[ours.lineNumber] ?? "(bundle)";
    const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
    if (npm) return `npm ${npm[1]} (and what it calls)`;
    const folder = /^src\/([^/]+)/.exec(source);
    return folder ? `harness src/${folder[1]} (and what it calls)` : "harness's bundle glue";
  }
  if (stack.some((frame) => frame.url.startsWith("node:internal/modules"))) return "Node's module loader";
  if (stack.some((frame) => NODE_BOOT.test(frame.url) || frame.functionName === "compileForInternalLoader"))
    return "Node's own start-up";
  return `other: ${leaf.functionName || "(anonymous)"} ${leaf.url}`.trim();
}

/** Milliseconds per kind before the first request, for one profile. */
function split(profile: Profile, lines: Map<string, string[]>): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inHttpClient = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (byId.get(at)?.callFrame.url === "node:_http_client") return true;
    return false;
  };
  const kinds = new Map<string, number>();
  for (const [index, id] of profile.samples.entries()) {
    if (inHttpClient(id)) break;
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame) stack.push(frame);
    }
    if (stack.length === 0 || stack[0].functionName === "(idle)") continue;
    const kind = kindOf(stack, lines);
    kinds.set(kind, (kinds.get(kind) ?? 0) + profile.timeDeltas[index] / 1000);
  }
  return kinds;
}

export async function startupProfile(cli = CLI): Promise<Map<string, number[]>> {
  const folder = mkdtempSync(join(tmpdir(), "harness-bench-profile-"));
  const env = cleanEnv();
  for (let run = 0; run < RUNS; run++) {
    const server = await startFakeLLM([{ reply: { text: "hi" } }]);
    await new Promise<void>((resolve) => {
      const args = ["--cpu-prof", "--cpu-prof-dir", folder, "--cpu-prof-interval", "250", cli, ...fakeFlags(server)];
      spawn(process.execPath, [...args, "-p", "hi"], { cwd: tempDir(), env, stdio: "ignore" }).on("close", () =>
        resolve(),
      );
    });
    await server.close();
  }
  const lines = new Map<string, string[]>();
  const kinds = new Map<string, number[]>();
  for (const file of readdirSync(folder)) {
    for (const [kind, ms] of split(JSON.parse(readFileSync(join(folder, file), "utf8")), lines))
      kinds.set(kind, [...(kinds.get(kind) ?? []), ms]);
  }
  return kinds;
}

export function reportStartupProfile(kinds: Map<string, number[]>, median: (values: number[]) => number): void {
  // A kind missing from a run counts 0 there: pad so the median is over every run.
  const medians = [...kinds].map(
    ([kind, values]) => [kind, median([...values, ...Array(RUNS - values.length).fill(0)])] as const,
  );
  const total = medians.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(
    `start-up profile (CPU before the first request, median of ${RUNS} runs; ${total.toFixed(0)} ms in all):`,
  );
  for (const [kind, ms] of medians.sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms >= 1))
    console.log(`  ${ms.toFixed(1).padStart(6)} ms  ${kind}`);
}
