// How much of the machine the in-process model takes: its threads and its context (whose KV
// cache is most of its memory). Pure functions of what node-llama-cpp reports, so they are
// tested without a model.
import { freemem } from "node:os";

/** Below this a model is a toy (tests make ~350 KB ones) and runs on one thread. */
export const SMALL_MODEL_BYTES = 50_000_000;
/** The context sizes tried, largest first; each halves the KV cache of the one before. */
export const CONTEXT_STEPS = [32_768, 16_384, 8_192, 4_096, 2_048] as const;
/**
 * The largest context worth its memory for a model of this many parameters. Small models lose
 * the thread of a conversation long before 32k tokens, and on a CPU every token of context also
 * costs prompt time, so they get less: measured on 2 cores, Qwen3 0.6B held 4.6 GB at 32k and
 * 2.0 GB at 8k at the same speed (issue 37).
 */
const CONTEXT_CAPS: Array<{ belowParameters: number; maxContext: number }> = [
  { belowParameters: 2e9, maxContext: 8_192 },
  { belowParameters: 10e9, maxContext: 16_384 },
];
/** Share of the memory free at load that model and context may take together. */
const MEMORY_SHARE = 0.75;

/**
 * Threads for llama.cpp: the configured number, else the cores useful for math, never more.
 * node-llama-cpp's CPU default is max(4, math cores): on a 2-core machine ggml's spinning barrier
 * then stalls 4 threads on 2 cores, and Qwen3 4B fell from 3.5 to 0.2 tokens/s (issue 37).
 * A toy model runs on one thread: handing its tiny matrices between threads costs more than it saves.
 */
export function chooseThreads(options: { configured?: number; mathCores: number; modelBytes: number }): number {
  if (options.configured !== undefined) return options.configured;
  if (options.modelBytes < SMALL_MODEL_BYTES) return 1;
  return Math.max(1, options.mathCores);
}

/** What the context choice is made from. `bytesFor` is the memory a context of that size takes (node-llama-cpp's estimate). */
export interface ContextInputs {
  /** A size the user set (config.json contextWindow): taken as it is, up to the trained length. */
  configured?: number;
  trainedLength: number;
  parameters: number;
  modelBytes: number;
  freeBytes: number;
  bytesFor(contextSize: number): Promise<number>;
}

/** The chosen context and the memory model and context are expected to take. */
export interface ContextChoice {
  contextSize: number;
  memoryBytes: number;
  /** Why it is smaller than the trained length, for the start line. */
  limitedBy?: "model size" | "free memory";
}

/**
 * The largest step no longer than the trained length and the cap for the model's size whose
 * memory, with the weights, fits MEMORY_SHARE of the free memory; the smallest step when none fits
 * (node-llama-cpp then says plainly that memory ran out).
 */
export async function chooseContextSize(inputs: ContextInputs): Promise<ContextChoice> {
  if (inputs.configured !== undefined) {
    const contextSize = Math.min(inputs.configured, inputs.trainedLength);
    return { contextSize, memoryBytes: inputs.modelBytes + (await inputs.bytesFor(contextSize)) };
  }
  const cap = CONTEXT_CAPS.find((entry) => inputs.parameters < entry.belowParameters)?.maxContext ?? CONTEXT_STEPS[0];
  const limit = Math.min(cap, inputs.trainedLength);
  const steps: number[] = CONTEXT_STEPS.filter((step) => step <= limit);
  if (steps.length === 0 || steps[0] < limit) steps.unshift(limit);
  const budget = inputs.freeBytes * MEMORY_SHARE;
  let choice: ContextChoice | undefined;
  for (const contextSize of steps) {
    choice = { contextSize, memoryBytes: inputs.modelBytes + (await inputs.bytesFor(contextSize)) };
    if (choice.memoryBytes <= budget) break;
  }
  if (!choice) throw new Error("no context size to try");
  if (choice.contextSize < limit) choice.limitedBy = "free memory";
  else if (cap < inputs.trainedLength && choice.contextSize === cap) choice.limitedBy = "model size";
  return choice;
}

/** `context 8k · ~2.0 GB · 2 threads`: what the load took, said once when the model is ready. */
export function describeLoad(choice: ContextChoice, threads: number): string {
  const k = choice.contextSize >= 1024 ? `${Math.round(choice.contextSize / 1024)}k` : String(choice.contextSize);
  const memory =
    choice.memoryBytes >= 1e8
      ? `${(choice.memoryBytes / 1e9).toFixed(1)} GB`
      : `${Math.ceil(choice.memoryBytes / 1e6)} MB`;
  const why = choice.limitedBy ? ` (capped for ${choice.limitedBy}; config.json contextWindow sets it)` : "";
  return `context ${k}${why} · ~${memory} · ${threads} thread${threads === 1 ? "" : "s"}`;
}

/** Memory free for the model now: what the system has available, within the process's cgroup limit when it has one. */
export function freeMemoryBytes(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const free = freemem();
  return constrained > 0 && constrained < free ? constrained : free;
}
