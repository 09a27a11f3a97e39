import { createInterface } from "node:readline";
import type { UserContent } from "../../core/messages.ts";

/** One prompt of `--input stream-json` (its pictures still as sent) and its line, or why a line could not be one. */
export type StreamInput = { text: string | UserContent; line: number } | { error: string };

/**
 * `--input stream-json`: each stdin line is one user message, run to completion before the next
 * line is read; EOF ends the session. A line is `{"type":"user","text":"..."}`, or Claude Code's
 * `{"type":"user","message":{"role":"user","content":"..." | [{"type":"text","text":"..."}, ...]}}`,
 * whose content may hold pictures as Anthropic's image blocks,
 * `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"..."}}`.
 * Blank lines are skipped.
 */
export async function* readStreamInput(stdin: NodeJS.ReadableStream): AsyncGenerator<StreamInput> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    const input = userInput(line) ?? {
      error: 'is not a user message; send one JSON object per line: {"type":"user","text":"..."}',
    };
    if ("error" in input) {
      yield { error: `stdin line ${number} ${input.error}` };
      lines.close();
      return;
    }
    yield { ...input, line: number };
  }
}

type Block = {
  type?: unknown;
  text?: unknown;
  source?: { type?: unknown; data?: unknown; media_type?: unknown };
} | null;

/** The line's prompt, why its picture cannot be taken, or undefined when it is no user message. */
function userInput(line: string): { text: string | UserContent } | { error: string } | undefined {
  let value: { type?: unknown; text?: unknown; message?: { content?: unknown } } | null;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value?.type !== "user") return undefined;
  if (typeof value.text === "string") return { text: value.text };
  const content = value.message?.content;
  if (typeof content === "string") return { text: content };
  if (!Array.isArray(content)) return undefined;
  // Other blocks (Claude Code's tool_result, ...) have no meaning here and are passed over.
  const parts: UserContent = [];
  for (const block of content as Block[]) {
    if (block?.type === "text" && typeof block.text === "string") parts.push({ type: "text", text: block.text });
    if (block?.type !== "image") continue;
    const source = block.source;
    if (source?.type !== "base64" || typeof source.data !== "string")
      return { error: 'has an image that is not base64 data; send it as source {type: "base64", media_type, data}' };
    const mediaType = typeof source.media_type === "string" ? source.media_type : "";
    parts.push({ type: "image", mediaType, data: source.data });
  }
  if (parts.length === 0) return undefined;
  if (parts.every((part) => part.type === "text")) return { text: parts.map((part) => part.text).join("\n") };
  return { text: parts };
}
