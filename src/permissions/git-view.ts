// git's own options come before its subcommand (`git -C dir push`, `git -c x=y push`), so a
// deny or ask rule written `Bash(git push:*)` reads `git -C` and misses the push. This view
// drops them, as git's option parser does (git(1), SYNOPSIS and OPTIONS:
// https://git-scm.com/docs/git#_options), so the rule sees `git push`. It is a deny view only:
// an allow rule never looks through `-c`, which can make any subcommand run a program
// (`core.pager`, `core.sshCommand`, an alias).

/** Options that take the next word as their value when not written `--opt=value` (`-C` and `-c` only so). */
const VALUED = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--attr-source",
  "--super-prefix",
]);
// The rest take no value or only `=value`: -v --version -h --help -p --paginate -P --no-pager
// --bare --no-replace-objects --no-lazy-fetch --no-optional-locks --no-advice --literal-pathspecs
// --glob-pathspecs --noglob-pathspecs --icase-pathspecs --html-path --man-path --info-path
// --exec-path[=path] --list-cmds=group. An option git does not know stops git with an error, so
// skipping it as value-less cannot hide a subcommand that runs.

/** A `git` command seen past its own options: the subcommand and its words, and the shell line a `!` alias runs. */
export interface GitView {
  words: string[];
  lines: string[];
}

/**
 * `words` (a command whose name is `git`) without git's options before the subcommand, and an
 * alias given on the command line (`git -c alias.p=push p`) expanded to what it runs. Undefined
 * when the command is not git or has no such options.
 */
export function gitView(words: string[]): GitView | undefined {
  if (words[0] !== "git") return undefined;
  const aliases = new Map<string, string>();
  let index = 1;
  while (index < words.length && words[index].startsWith("-") && words[index] !== "--") {
    const word = words[index];
    const glued = /^-c(.+)$/.exec(word)?.[1];
    const value = VALUED.has(word) ? words[index + 1] : glued;
    if (value !== undefined && (word === "-c" || glued !== undefined)) {
      const alias = /^alias\.([^=]+)=(.*)$/s.exec(value);
      if (alias) aliases.set(alias[1], alias[2]);
    }
    index += VALUED.has(word) ? 2 : 1;
  }
  if (words[index] === "--") index++;
  if (index === 1 && aliases.size === 0) return undefined;
  const [subcommand, ...rest] = words.slice(index);
  const alias = subcommand === undefined ? undefined : aliases.get(subcommand);
  if (alias === undefined) return { words: ["git", ...words.slice(index)], lines: [] };
  // A `!` alias is a shell line, its arguments after it; any other is more git words.
  if (alias.startsWith("!"))
    return { words: ["git", subcommand, ...rest], lines: [[alias.slice(1), ...rest].join(" ")] };
  return { words: ["git", ...alias.trim().split(/\s+/), ...rest], lines: [] };
}
