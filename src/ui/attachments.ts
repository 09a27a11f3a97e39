// `@path` in a chat message attaches that file: its text goes with the prompt in a fenced block.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";

/** Bytes attached from one file; the rest is cut with a note, so one mention cannot flood the context. */
export const MAX_ATTACHMENT_BYTES = 64 * 1024;
/** Files attached from one message at most. */
export const MAX_ATTACHMENTS = 10;

/**
 * The prompt with every `@path` naming an existing text file followed by that file's contents.
 * The mention itself stays in the text, so the model knows what the user referred to; mentions
 * of things that are not files (`@someone`, folders, binaries) are left alone.
 */
export function expandFileMentions(text: string, cwd: string): string {
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const mention = match[1].replace(/[.,;:!?)\]]+$/, "");
    const path = resolve(cwd, mention.replace(/^~(?=\/)/, homedir()));
    if (seen.has(path) || blocks.length >= MAX_ATTACHMENTS) continue;
    seen.add(path);
    const block = attachmentFor(mention, path);
    if (block) blocks.push(block);
  }
  return blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text;
}

function attachmentFor(mention: string, path: string): string | undefined {
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return undefined;
    size = stats.size;
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(Math.min(size, MAX_ATTACHMENT_BYTES));
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, 0);
  } finally {
    closeSync(fd);
  }
  if (buffer.includes(0)) return undefined; // binary
  const content = buffer.toString("utf8").replace(/\uFFFD$/, "");
  const note = size > MAX_ATTACHMENT_BYTES ? `\n[attachment cut: the first ${MAX_ATTACHMENT_BYTES} of ${size} bytes; read_file shows the rest]` : "";
  return `${fencedBlock(mention, content)}${note}`;
}

/** `label:` and the content in a code fence longer than any backtick run inside it. */
export function fencedBlock(label: string, content: string): string {
  const fence = "`".repeat(Math.max(3, ...[...content.matchAll(/`{3,}/g)].map((run) => run[0].length + 1)));
  return `${label}:\n${fence}\n${content}${content.endsWith("\n") ? "" : "\n"}${fence}`;
}
