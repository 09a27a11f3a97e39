// What an "always" answer remembers for a command: a prefix short enough to cover the next
// `git status` and long enough not to cover `git push`.
import { unwrap } from "./command-views.ts";
import type { SimpleCommand } from "./shell-split.ts";

/** Commands whose second word picks what they do (`git status` vs `git push`), so "always" remembers both. */
const SUBCOMMAND_TOOLS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "npx",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "make",
  "gh",
  "apt",
  "apt-get",
  "brew",
  "dotnet",
  "mvn",
  "gradle",
  "deno",
  "rustup",
  "terraform",
  "helm",
]);

/**
 * The prefix an "always" answer remembers for a command: its first word, plus the subcommand
 * for tools that have them (`git status`, and `npm run build` for scripts). Through a wrapper,
 * the wrapper as written and the prefix of what it runs (`timeout 5 npm test`).
 */
export function commandPrefix(part: SimpleCommand): string {
  const inner = unwrap(part.words);
  if (inner.prefixLength > 0 && inner.words.length > 0)
    return [...part.words.slice(0, inner.prefixLength), commandPrefix({ words: inner.words, writesFile: false })].join(
      " ",
    );
  const [first, second, third] = part.words;
  const isSubcommand = (word: string | undefined) => word !== undefined && /^[a-z][a-z0-9:_-]*$/.test(word);
  if (!SUBCOMMAND_TOOLS.has(first) || !isSubcommand(second)) return first;
  if (second === "run" && isSubcommand(third)) return `${first} ${second} ${third}`;
  return `${first} ${second}`;
}

/** What "always" remembers for a part: its prefix, and those of the commands it runs (`find -exec rm`). */
export function rememberedPrefixes(part: SimpleCommand): string[] {
  return [
    commandPrefix(part),
    ...unwrap(part.words)
      .commands.filter((words) => words.length > 0)
      .map((words) => commandPrefix({ words, writesFile: false })),
  ];
}
