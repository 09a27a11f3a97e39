// The wire corpus: recorded LLM API responses in test/support/fixtures/wire (origins in its MANIFEST.md),
// with the expected parse of each in expected.json. The one place tests find recordings.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

/** The folder holding the recordings, MANIFEST.md and expected.json. */
export const WIRE_DIR = join(ROOT, "test", "support", "fixtures", "wire");

/** The wire APIs recordings are named after (the file name's first part). */
export type WireApi = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** Recording file names for one API, sorted. */
export function wireRecordings(api: WireApi): string[] {
  return readdirSync(WIRE_DIR)
    .filter((name) => name.startsWith(`${api}--`))
    .sort();
}

/** A recording's body as text. */
export function readRecording(name: string): string {
  return readFileSync(join(WIRE_DIR, name), "utf8");
}

/**
 * About how many slices a replay cuts the largest recordings into. Each slice is a write, a chunk
 * and a read (~80 µs of CPU, most of it node:test's async bookkeeping): at 1..16 bytes the 250 KB
 * web-search recording alone took 36,000 of them, and the corpus 240,000 (20 s of CPU). Above this
 * the slices grow with the recording, so its cuts still fall anywhere (inside a UTF-8 character,
 * between CR and LF, inside a field name), about 2,000 times; the small recordings, most of the
 * corpus, keep the slices they ask for.
 */
const MAX_SLICES = 2000;

/** The largest slice for replaying recording `name` in slices of 1..`largest` bytes, within MAX_SLICES. */
export function sliceBytesWithin(name: string, largest: number): number {
  return Math.max(largest, Math.ceil((2 * Buffer.byteLength(readRecording(name))) / MAX_SLICES));
}

/** expected.json: file name to `{ expected }` (the recorded parse), plus `_conventions`. */
export function readExpectedParses(): Record<string, { expected: any }> {
  return JSON.parse(readFileSync(join(WIRE_DIR, "expected.json"), "utf8"));
}

/**
 * Output tokens as billed (docs: src/providers/openai-chat/openai-chat-stream.ts toUsage): completion_tokens,
 * plus reasoning the server left out of it, which total_tokens or an oversized reasoning count shows.
 */
export function billedOutput(usage: any): number {
  if (usage.total_tokens > usage.prompt_tokens + usage.completion_tokens)
    return usage.total_tokens - usage.prompt_tokens;
  if ((usage.reasoning_tokens ?? 0) > usage.completion_tokens) return usage.completion_tokens + usage.reasoning_tokens;
  return usage.completion_tokens;
}
