// `@path` in a text: a chat message's attachments, a custom command's, an instruction file's
// imports. One reading of what a mention is, for all of them.
import { homedir } from "node:os";
import { resolve } from "node:path";

/** What `@` mentions name (a word that starts with `@`), without punctuation that ends the sentence around them. */
export function mentionsIn(text: string): string[] {
  return [...text.matchAll(/(?:^|\s)@([^\s]+)/g)].map((match) => match[1].replace(/[.,;:!?)\]]+$/, "")).filter(Boolean);
}

/** The file a mention names: relative to `base`, or from the home folder (`~/`). */
export function resolveMention(mention: string, base: string, home = homedir()): string {
  return resolve(base, mention.replace(/^~(?=\/|$)/, home));
}
