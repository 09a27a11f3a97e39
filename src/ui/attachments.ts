// `@path` in a chat message attaches that file: its text goes with the prompt in a fenced block.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { mentionsIn, pastedPathsIn, resolveMention } from "../shared/mentions.ts";
import { whyOutOfReach } from "../shared/path-reach.ts";

/** Bytes attached from one file; the rest is cut with a note, so one mention cannot flood the context. */
export const MAX_ATTACHMENT_BYTES = 64 * 1024;
/** Files attached from one message at most. */
export const MAX_ATTACHMENTS = 10;

/**
 * The prompt with every `@path` naming an existing text file followed by that file's contents.
 * The mention itself stays in the text, so the model knows what the user referred to; mentions
 * of things that are not files (`@someone`, folders, binaries) are left alone. A credential path
 * (`secretPaths`, named or through a link) is never attached, whoever wrote the text: a prompt
 * built from a file (`-p "$(cat task.md)"`) is not always the user's own words; the prompt says so.
 */
export function expandFileMentions(text: string, cwd: string, secretPaths: readonly string[]): string {
  const blocks = attachmentBlocks(mentionsIn(text), cwd, secretPaths);
  return blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text;
}

/** The blocks `mentions` attach (as expandFileMentions does), for a text whose mentions were found elsewhere. */
export function attachmentBlocks(mentions: readonly string[], cwd: string, secretPaths: readonly string[]): string[] {
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const mention of mentions) {
    const path = resolveMention(mention, cwd);
    if (seen.has(path) || blocks.length >= MAX_ATTACHMENTS || IMAGE_NAME.test(path)) continue; // images go as pictures (imagesNamedIn)
    seen.add(path);
    const why = isFile(path) ? whyOutOfReach(path, { secretPaths }) : undefined;
    const block = why ? `@${mention}: not attached (${why})` : attachmentFor(mention, path);
    if (block) blocks.push(block);
  }
  return blocks;
}

/** File names taken as pictures; the file's first bytes decide whether it really is one. */
const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/** An image named in a prompt: where it is, and the name it was given. */
export interface NamedImage {
  path: string;
  name: string;
}

/**
 * The existing image files a prompt names, in order, at most MAX_ATTACHMENTS: `@shot.png`, and
 * with `pastedPaths` (the chat, where files are dropped on the terminal) a pasted path to one.
 */
export function imagesNamedIn(text: string, cwd: string, options: { pastedPaths: boolean }): NamedImage[] {
  const names = mentionsIn(text);
  if (options.pastedPaths) {
    for (const pasted of pastedPathsIn(text)) names.push(pasted.name);
  }
  const found = new Map<string, NamedImage>();
  for (const name of names) {
    const path = resolveMention(name, cwd);
    if (!IMAGE_NAME.test(path) || found.has(path) || found.size >= MAX_ATTACHMENTS || !isFile(path)) continue;
    found.set(path, { path, name });
  }
  return [...found.values()];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
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
  const note =
    size > MAX_ATTACHMENT_BYTES
      ? `\n[attachment cut: the first ${MAX_ATTACHMENT_BYTES} of ${size} bytes; read_file shows the rest]`
      : "";
  return `${fencedBlock(mention, content)}${note}`;
}

/** `label:` and the content in a code fence longer than any backtick run inside it. */
export function fencedBlock(label: string, content: string): string {
  const fence = "`".repeat(Math.max(3, ...[...content.matchAll(/`{3,}/g)].map((run) => run[0].length + 1)));
  return `${label}:\n${fence}\n${content}${content.endsWith("\n") ? "" : "\n"}${fence}`;
}
