// git's own options come before its subcommand (`git -C dir push`, `git -c x=y push`), so a
// deny or ask rule written `Bash(git push:*)` reads `git -C` and misses the push. This view
// drops them, as git's option parser does (git(1), SYNOPSIS and OPTIONS:
// https://git-scm.com/docs/git#_options), so the rule sees `git push`. It is a deny view only:
// an allow rule never looks through `-c`, which can make any subcommand run a program
// (`core.pager`, `core.sshCommand`, an alias).
//
// What the command line cannot say is marked unreadable, so a `Bash(git …)` deny or ask rule
// fails closed on it (policy.ts): a subcommand that is not one of git's own (an alias, from any
// configuration file, can make it `push`), configuration git takes from a file or the
// environment (`-c include.path=`, `--config-env`, `GIT_CONFIG_*`, `GIT_DIR`, a `HOME` with
// its own `.gitconfig`), a `-c` value computed when it runs. What git reads from configuration
// files already there (the repository's own `.git/config`, which the sandbox keeps commands
// from writing) is not read: a rule judges the command line.
import { isOpen } from "./shell-split.ts";

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

/**
 * git's own commands (`git --list-cmds=builtins` of git 2.39 and later ones, and the programs
 * git ships): an alias cannot take their names. Any other subcommand may be an alias.
 */
const GIT_COMMANDS = new Set(
  (
    "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore " +
    "check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit " +
    "commit-graph commit-tree config count-objects credential credential-cache credential-store daemon describe " +
    "diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch " +
    "fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc " +
    "get-tar-commit-id grep gui hash-object help hook http-backend imap-send index-pack init init-db instaweb " +
    "interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge " +
    "merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv " +
    "name-rev notes p4 pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport " +
    "range-diff read-tree rebase receive-pack reflog refs remote repack replace replay repo request-pull rerere " +
    "reset restore rev-list rev-parse revert rm send-email send-pack shell shortlog show show-branch show-index " +
    "show-ref sparse-checkout stage stash status stripspace submodule svn switch symbolic-ref tag unpack-file " +
    "unpack-objects update-index update-ref update-server-info upload-archive upload-pack var verify-commit " +
    "verify-pack verify-tag version whatchanged worktree write-tree"
  ).split(" "),
);

/** Configuration keys whose value is a command git runs (lower-case; `*` is one name part). */
const COMMAND_KEYS = [
  /^core\.(pager|editor|sshcommand|fsmonitor|askpass)$/,
  /^pager\..+$/,
  /^sequence\.editor$/,
  /^credential\.(.+\.)?helper$/,
  /^diff\.(external|.+\.(command|textconv))$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^gpg\.(.+\.)?program$/,
  /^remote\..+\.(receivepack|uploadpack|vcs)$/,
  /^(uploadpack\.packobjectshook|sendemail\.(smtpserver|tocmd|cccmd|sendmailcmd))$/,
];

/** Options of a subcommand whose value is a shell line it runs (`git rebase -x 'git push'`). */
const LINE_OPTIONS: Record<string, RegExp> = {
  rebase: /^(?:-x|--exec)$/,
  difftool: /^(?:-x|--extcmd)$/,
  "filter-branch": /^--(?:env|tree|index|parent|msg|commit|tag-name)-filter$/,
};

/**
 * A `git` command seen past its own options: the subcommand and its words, the shell lines it
 * runs (a `!` alias, a command-running `-c` value, `rebase -x`, `submodule foreach`), and why it
 * cannot be read, when configuration the command line does not show may decide what it runs.
 */
export interface GitView {
  words: string[];
  lines: string[];
  /** Why configuration the command line does not show (a file, the environment, a computed value) decides what it runs. */
  unreadable?: string;
  /** Why its subcommand may be an alias: it is not one of git's own. */
  mayBeAlias?: string;
}

/**
 * `words` (a command whose name is `git`) without git's options before the subcommand, and an
 * alias given on the command line (`git -c alias.p=push p`) expanded to what it runs. Undefined
 * when the command is not git.
 */
export function gitView(words: string[]): GitView | undefined {
  if (words[0] !== "git") return undefined;
  const aliases = new Map<string, string>();
  const lines: string[] = [];
  let unreadable: string | undefined;
  let index = 1;
  while (index < words.length && words[index].startsWith("-") && words[index] !== "--") {
    const word = words[index];
    const glued = /^-c(.+)$/.exec(word)?.[1];
    const value = VALUED.has(word) ? words[index + 1] : glued;
    if (word === "--config-env" || word.startsWith("--config-env="))
      unreadable ??= "git --config-env takes configuration from the environment";
    // As GIT_DIR does (gitEnvironment): the configuration of a repository named for this command.
    if (word === "--git-dir" || word.startsWith("--git-dir="))
      unreadable ??= "git --git-dir takes configuration from the repository it names";
    if (value !== undefined && (word === "-c" || glued !== undefined)) {
      const [key, setting = ""] = splitSetting(value);
      if (isOpen(value)) unreadable ??= "a git -c setting is only known when it runs";
      else if (/^include(if\..*)?\.path$/.test(key) || key === "core.hookspath")
        unreadable ??= `git -c ${key} takes configuration or hooks from files`;
      else if (key.startsWith("alias.")) aliases.set(key.slice("alias.".length), setting);
      else if (COMMAND_KEYS.some((pattern) => pattern.test(key))) lines.push(setting.replace(/^!/, ""));
    }
    index += VALUED.has(word) ? 2 : 1;
  }
  if (words[index] === "--") index++;
  const [subcommand, ...rest] = words.slice(index);
  const alias = subcommand === undefined ? undefined : aliases.get(subcommand.toLowerCase());
  if (alias !== undefined) {
    // A `!` alias is a shell line, its arguments after it; any other is more git words.
    if (alias.startsWith("!"))
      return {
        words: ["git", subcommand, ...rest],
        lines: [...lines, [alias.slice(1), ...rest].join(" ")],
        unreadable,
      };
    return { words: ["git", ...alias.trim().split(/\s+/), ...rest], lines, unreadable };
  }
  const mayBeAlias =
    subcommand !== undefined && !isOpen(subcommand) && !GIT_COMMANDS.has(subcommand)
      ? `\`git ${subcommand}\` is not one of git's own commands: an alias or a git-${subcommand} program decides what it runs`
      : undefined;
  lines.push(...subcommandLines(subcommand, rest));
  return { words: ["git", ...words.slice(index)], lines, unreadable, mayBeAlias };
}

/** `key=value` of a `-c` setting, the key lower-cased (git's section and variable names are case-insensitive). */
function splitSetting(value: string): [string, string] {
  const equals = value.indexOf("=");
  return equals === -1 ? [value.toLowerCase(), ""] : [value.slice(0, equals).toLowerCase(), value.slice(equals + 1)];
}

/** The shell lines a subcommand runs from its arguments: `submodule foreach 'git push'`, `bisect run git push`, `rebase -x …`. */
function subcommandLines(subcommand: string | undefined, rest: string[]): string[] {
  if (subcommand === "submodule") {
    const foreach = rest.indexOf("foreach");
    if (foreach !== -1)
      return [
        rest
          .slice(foreach + 1)
          .filter((word) => !/^(?:--recursive|-q|--quiet)$/.test(word))
          .join(" "),
      ];
  }
  if (subcommand === "bisect" && rest[0] === "run") return [rest.slice(1).join(" ")];
  const option = subcommand === undefined ? undefined : LINE_OPTIONS[subcommand];
  if (!option) return [];
  const lines: string[] = [];
  for (const [at, word] of rest.entries()) {
    const glued = /^(--[a-z-]+)=(.*)$/s.exec(word);
    if (glued && option.test(glued[1])) lines.push(glued[2]);
    else if (option.test(word) && rest[at + 1] !== undefined) lines.push(rest[at + 1]);
  }
  return lines;
}

/** Variables through which git takes configuration, or a program it runs, from the environment. */
const GIT_VARIABLES =
  "GIT_CONFIG\\w*|GIT_DIR|GIT_COMMON_DIR|GIT_EXEC_PATH|GIT_PAGER|PAGER|GIT_EDITOR|EDITOR|VISUAL|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|GIT_TEMPLATE_DIR|HOME|XDG_CONFIG_HOME";
/** An assignment to one of them, anywhere (`X=1 git`, `env X=1 git`, `sudo X=1 git`). */
const ASSIGNS_GIT_VARIABLE = new RegExp(`^(${GIT_VARIABLES})\\+?=`);
/** One of them named by a command that sets variables (`export GIT_DIR`, `printf -v HOME`, `declare -n r=HOME`). */
const NAMES_GIT_VARIABLE = new RegExp(`(?:^|=)(${GIT_VARIABLES})(?:\\+?=|$)`);
/** Commands that set variables, by a name they may compute (`export "$n=1"`, `printf -v "$n"`). */
const SETS_VARIABLES = new Set(["export", "declare", "typeset", "local", "readonly", "read", "mapfile", "readarray"]);
/** An assignment whose name is written out (its value may be computed: `PATH=$HOME/bin:$PATH`). */
const LITERAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;

/**
 * Why git's configuration may come from the environment a command line sets, when it may: an
 * assignment to one of git's variables (`GIT_CONFIG_COUNT=1`), one named by a command that sets
 * variables (`export GIT_DIR`, `printf -v HOME …`), or a variable set by a name computed when it
 * runs (`export "$n=1"`). Then no `git` in that line can be read by a rule about git.
 */
export function gitEnvironment(views: { words: string[] }[]): string | undefined {
  for (const { words } of views) {
    const setter = SETS_VARIABLES.has(words[0] ?? "") || (words[0] === "printf" && words.includes("-v"));
    const named = words
      .map((word) => (ASSIGNS_GIT_VARIABLE.exec(word) ?? (setter ? NAMES_GIT_VARIABLE.exec(word) : null))?.[1])
      .find(Boolean);
    if (named) return `it sets ${named}, through which git takes configuration from the environment`;
    if (setter && words.slice(1).some((word) => isOpen(word) && !LITERAL_NAME.test(word)))
      return `\`${words[0]}\` sets a variable whose name is only known when it runs`;
  }
  return undefined;
}
