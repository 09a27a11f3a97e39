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

/**
 * Pasted paths: what a terminal inserts when a file is dropped on it. Quoted ('...' or "..."), or
 * bare with backslash-escaped spaces, starting with `/`, `~/`, `./`, `../` or `file://`.
 */
const PASTED_PATH = /'([^']+)'|"([^"]+)"|(?:^|(?<=\s))((?:file:\/\/|~\/|\.{1,2}\/|\/)(?:\\ |[^\s'"])+)/g;

/** The pasted paths in a text: each as written (`'/a b.png'`) and the path it names (`/a b.png`). */
export function pastedPathsIn(text: string): { written: string; name: string }[] {
  return [...text.matchAll(PASTED_PATH)].map((match) => {
    const pasted = match[1] ?? match[2] ?? match[3].replace(/\\ /g, " ");
    return { written: match[0], name: pasted.replace(/^file:\/\//, "") };
  });
}
