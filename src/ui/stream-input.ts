import { createInterface } from "node:readline";

/** One prompt of `--input stream-json`, or why a line could not be one. */
export type StreamInput = { text: string } | { error: string };

/**
 * `--input stream-json`: each stdin line is one user message, run to completion before the next
 * line is read; EOF ends the session. A line is `{"type":"user","text":"..."}`, or Claude Code's
 * `{"type":"user","message":{"role":"user","content":"..." | [{"type":"text","text":"..."}]}}`.
 * Blank lines are skipped.
 */
export async function* readStreamInput(stdin: NodeJS.ReadableStream): AsyncGenerator<StreamInput> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    const text = userText(line);
    if (text === undefined) {
      yield {
        error: `stdin line ${number} is not a user message; send one JSON object per line: {"type":"user","text":"..."}`,
      };
      lines.close();
      return;
    }
    yield { text };
  }
}

function userText(line: string): string | undefined {
  let value: { type?: unknown; text?: unknown; message?: { content?: unknown } } | null;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value?.type !== "user") return undefined;
  if (typeof value.text === "string") return value.text;
  const content = value.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const isText = (part: { type?: unknown; text?: unknown } | null): part is { type: "text"; text: string } =>
      part?.type === "text" && typeof part.text === "string";
    const texts = content.filter(isText).map((part) => part.text);
    return texts.length > 0 ? texts.join("\n") : undefined;
  }
  return undefined;
}
