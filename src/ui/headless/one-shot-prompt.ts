// The prompt of a one-shot run: `-p` and prompt words together, `@file` mentions attached, and
// piped stdin appended as context (or, with no prompt given, stdin is the prompt).
import { expandFileMentions, fencedBlock } from "../attachments.ts";

/** How long a pipe may stay silent before `-p` runs without it (an open pipe that never sends, e.g. from a parent that does not close stdin). */
export const STDIN_WAIT_MS = 1000;
/** Piped context kept at most; the rest is cut with a note, so `cat big.log | harness -p` cannot flood the context. */
export const MAX_STDIN_BYTES = 256 * 1024;

export interface OneShotPromptInput {
  print: string | undefined;
  positionals: string[];
  stdin: NodeJS.ReadStream;
  cwd: string;
  /** What an `@path` never attaches (permissions/secret-paths.ts). */
  secretPaths: readonly string[];
  /** Tells the person something about their input (stderr). */
  notice(text: string): void;
}

/**
 * The prompt to run once; undefined when none was given and stdin is a terminal (a chat).
 * `-p a b` means "a b": words after the flag's value belong to the prompt, not to nothing.
 */
export async function oneShotPrompt(input: OneShotPromptInput): Promise<string | undefined> {
  const words = [...(input.print === undefined ? [] : [input.print]), ...input.positionals];
  if (words.length === 0)
    return input.stdin.isTTY ? undefined : readPipe(input.stdin, Infinity).then((piped) => piped.text);
  const prompt = expandFileMentions(words.join(" "), input.cwd, input.secretPaths);
  if (input.stdin.isTTY) return prompt;
  const piped = await readPipe(input.stdin, STDIN_WAIT_MS);
  if (piped.isSilent) input.notice(`stdin sent nothing for ${STDIN_WAIT_MS / 1000}s: running the prompt without it`);
  if (!piped.text.trim()) return prompt;
  const bytes = Buffer.byteLength(piped.text);
  const note = bytes > MAX_STDIN_BYTES ? `\n[stdin cut: the first ${MAX_STDIN_BYTES} of ${bytes} bytes]` : "";
  return `${prompt}\n\n${fencedBlock("stdin", cutToBytes(piped.text, MAX_STDIN_BYTES))}${note}`;
}

/**
 * All of stdin, or nothing when no data came within `waitMs` (the pipe is then left alone).
 * Once data arrives it is read to the end.
 */
function readPipe(stdin: NodeJS.ReadStream, waitMs: number): Promise<{ text: string; isSilent: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const finish = (isSilent: boolean) => {
      clearTimeout(timer);
      stdin.off("data", onData).off("end", onEnd).off("error", reject);
      if (isSilent) stdin.pause();
      resolve({ text: Buffer.concat(chunks).toString("utf8"), isSilent });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(timer);
    };
    const onEnd = () => finish(false);
    const timer = Number.isFinite(waitMs) ? setTimeout(() => finish(true), waitMs) : undefined;
    stdin.on("data", onData).on("end", onEnd).on("error", reject);
  });
}

function cutToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  return bytes.length <= maxBytes
    ? text
    : bytes
        .subarray(0, maxBytes)
        .toString("utf8")
        .replace(/\uFFFD$/, "");
}
