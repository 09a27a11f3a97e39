// What a simple command really runs, as far as words can tell: through assignments and
// wrappers (`sudo`, `env`, `xargs`, `timeout`, `nice`, `exec`, ...), paths (`/bin/rm`), shells
// given a string (`bash -c -- '…'`), `eval`, `env -S '…'`, `find -exec` and git's own options
// (`git -C dir push`, git-view.ts). Deny and ask rules look at every view; allow rules must
// cover what runs inside, and cannot vouch for a string handed to a shell at all.
import path from "node:path";
import { gitEnvironment, gitView } from "./git-view.ts";
import { isOpen, type SimpleCommand, type SplitCommand, splitCommand, UNKNOWN } from "./shell-split.ts";

/**
 * A program that runs the rest of its arguments; `valued` options take the next word,
 * `positional` words precede the command (timeout's duration, flock's lock file), `command`
 * options take a command line (`su -c '…'`), and `joined` means the words after the options
 * are joined into one line for `sh -c` (`watch 'rm x'`).
 */
interface Wrapper {
  valued: string[];
  positional?: number;
  command?: string[];
  joined?: boolean;
}

const WRAPPERS: Record<string, Wrapper> = {
  sudo: {
    valued: [
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-U",
      "-T",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--role",
      "--type",
      "--other-user",
    ],
  },
  doas: { valued: ["-u", "-C"] },
  env: { valued: ["-u", "-C", "--unset", "--chdir"] },
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ["-a"] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  nice: { valued: ["-n", "--adjustment"] },
  ionice: { valued: ["-c", "-n", "--class", "--classdata"] },
  time: { valued: ["-f", "-o", "--format", "--output"] },
  timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  busybox: { valued: [] },
  chroot: { valued: ["--userspec", "--groups"], positional: 1 },
  chrt: { valued: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], positional: 1 },
  taskset: { valued: [], positional: 1 },
  flock: { valued: ["-w", "-E", "--timeout", "--conflict-exit-code"], positional: 1, command: ["-c", "--command"] },
  unshare: {
    valued: [
      "-S",
      "-G",
      "-R",
      "-w",
      "--setuid",
      "--setgid",
      "--root",
      "--wd",
      "--propagation",
      "--map-user",
      "--map-group",
    ],
  },
  setpriv: {
    valued: ["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps", "--ambient-caps"],
  },
  prlimit: { valued: ["-p", "--pid"] },
  numactl: { valued: ["-N", "-m", "-C", "-i", "-p", "--cpunodebind", "--membind", "--physcpubind", "--interleave"] },
  "systemd-run": {
    valued: ["-u", "--unit", "-p", "--property", "-E", "--setenv", "--description", "--slice", "--uid"],
  },
  su: { valued: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w"], command: ["-c", "--command"] },
  runuser: { valued: ["-u", "--user", "-g", "--group", "-G", "-s", "--shell", "-w"], command: ["-c", "--command"] },
  script: {
    valued: ["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-T", "--log-timing"],
    command: ["-c", "--command"],
  },
  // `sg group 'cmd'` and `sg group -c 'cmd'` run a string with /bin/sh.
  sg: { valued: [], positional: 1, command: ["-c"], joined: true },
  strace: { valued: ["-o", "-e", "-p", "-s", "-E", "-u", "-a", "-b", "-I", "-O", "-P", "-X", "-S", "--output"] },
  ltrace: { valued: ["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "-w", "--output"] },
  watch: { valued: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"], joined: true },
  xargs: {
    valued: [
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "-d",
      "-E",
      "-a",
      "--max-args",
      "--max-lines",
      "--max-procs",
      "--max-chars",
      "--delimiter",
      "--eof",
      "--arg-file",
      "--replace",
    ],
  },
};
/** Shells, whose `-c` argument is itself a command line. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash"]);
/** Shell options that take the next word (`-o pipefail`). */
const SHELL_VALUED = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
/** `find` actions that run a command up to `;` or `+`. */
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** A command name bash computes: a variable, a substitution, a brace expansion or a glob (or open: shell-split.ts). */
const COMPUTED_NAME = /[$`{}*?\0]|\[.*\]/;
/** How deep `bash -c "sudo bash -c '...'"` is followed. */
const MAX_NESTING = 5;

/** One simple command seen through what wraps it. */
export interface Unwrapped {
  /** The command proper, after assignments and wrappers. */
  words: string[];
  /** How many words came before it (`sudo -u x` is 3). */
  prefixLength: number;
  /** Command lines it hands to a shell (`bash -c '…'`, `eval …`, `env -S '…'`). */
  lines: string[];
  /** Commands it runs besides itself (`find . -exec rm {} ;`). */
  commands: string[][];
  /** Why an allow rule cannot vouch for it, when one cannot. */
  opaque?: string;
}

export function unwrap(words: string[]): Unwrapped {
  const lines: string[] = [];
  let index = 0;
  for (;;) {
    while (index < words.length && ASSIGNMENT.test(words[index])) index++;
    const name = path.basename(words[index] ?? "");
    const wrapper = WRAPPERS[name];
    if (!wrapper) break;
    index++;
    while (index < words.length) {
      const word = words[index];
      if (word === "--") {
        index++;
        break;
      }
      if (name === "env" && (ASSIGNMENT.test(word) || word === "-")) {
        index++;
        continue;
      }
      if (!word.startsWith("-") || word === "-") break;
      const split = name === "env" ? /^(?:-S|--split-string=?)(.*)$/.exec(word) : null;
      if (split) {
        lines.push(
          [split[1] || words[index + 1], ...words.slice(split[1] ? index + 1 : index + 2)]
            .filter((w) => w !== undefined)
            .join(" "),
        );
        return {
          words: [],
          prefixLength: words.length,
          lines,
          commands: [],
          opaque: "env -S runs a string as a command",
        };
      }
      const isOption = (options: string[] = []) =>
        options.includes(word) || (/^-[A-Za-z]{2,}$/.test(word) && options.includes(`-${word.at(-1)}`));
      if (isOption(wrapper.command)) return runsString(name, word, words, index, lines);
      index += isOption(wrapper.valued) ? 2 : 1;
    }
    index += wrapper.positional ?? 0;
    if (wrapper.command?.includes(words[index] ?? "")) return runsString(name, words[index], words, index, lines);
    if (wrapper.joined && index < words.length) {
      lines.push(words.slice(index).join(" "));
      return {
        words: [],
        prefixLength: words.length,
        lines,
        commands: [],
        opaque: `${name} runs its words as a command line`,
      };
    }
  }
  const rest = words.slice(index);
  return { words: withInput(words, index, rest), prefixLength: index, ...whatItRuns(rest) };
}

/**
 * xargs adds words from its input to the command it runs (after it, or in place of its `-I`
 * string), which no rule can read: they are open (`echo push | xargs git` is `git \0`).
 */
function withInput(words: string[], index: number, rest: string[]): string[] {
  const xargs = words
    .slice(0, index)
    .map((word) => path.basename(word))
    .lastIndexOf("xargs");
  if (xargs === -1 || rest.length === 0) return rest;
  const options = words.slice(xargs + 1, index);
  let replace: string | undefined;
  for (const [at, option] of options.entries()) {
    if (option === "-I" || option === "--replace") replace = options[at + 1] ?? "{}";
    else if (/^-I./.test(option)) replace = option.slice(2);
    else if (option === "-i") replace = "{}";
    else if (/^(?:-i|--replace=)./.test(option)) replace = option.replace(/^(?:-i|--replace=)/, "");
  }
  const marked = rest.map((word, at) =>
    at > 0 && replace !== undefined && word.includes(replace) ? word.slice(0, word.indexOf(replace)) + UNKNOWN : word,
  );
  return [...marked, UNKNOWN];
}

/** A wrapper's option that takes a command line (`su -c '…'`): that line is what runs. */
function runsString(name: string, option: string, words: string[], index: number, lines: string[]): Unwrapped {
  if (words[index + 1] !== undefined) lines.push(words[index + 1]);
  return {
    words: [],
    prefixLength: words.length,
    lines,
    commands: [],
    opaque: `${name} ${option} runs a string as a command`,
  };
}

/** What the command proper hands on: a shell's string, eval's words, find's -exec commands. */
function whatItRuns(words: string[]): { lines: string[]; commands: string[][]; opaque?: string } {
  const name = path.basename(words[0] ?? "");
  if (words.length === 0) return { lines: [], commands: [] };
  if (COMPUTED_NAME.test(words[0]))
    return { lines: [], commands: [], opaque: "its command name is computed when it runs" };
  if (name === "eval")
    return { lines: [words.slice(1).join(" ")], commands: [], opaque: "eval runs a string as a command" };
  if (name === "trap" && words.length > 2 && !words[1].startsWith("-"))
    return { lines: [words[1]], commands: [], opaque: "trap runs a string as a command" };
  if (name === "alias" && words.length > 1)
    return {
      lines: words.slice(1).map((word) => word.replace(/^[^=]*=/, "")),
      commands: [],
      opaque: "alias makes a command of a string",
    };
  if (name === "source" || name === ".")
    return { lines: [], commands: [], opaque: `${name} runs a script inside the shell` };
  if (SHELLS.has(name)) return shellArguments(words);
  if (name === "find") return { lines: [], commands: findActions(words) };
  return { lines: [], commands: [] };
}

function shellArguments(words: string[]): { lines: string[]; commands: string[][]; opaque?: string } {
  let hasCommandString = false;
  let index = 1;
  while (index < words.length) {
    const word = words[index];
    if (word === "--" || word === "-") {
      index++;
      break;
    }
    if (SHELL_VALUED.has(word) || /^[-+][A-Za-z]*[oO]$/.test(word)) {
      index += 2;
      continue;
    }
    if (!/^[-+]/.test(word)) break;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) hasCommandString = true;
    index++;
  }
  if (hasCommandString)
    return {
      lines: words[index] === undefined ? [] : [words[index]],
      commands: [],
      opaque: `${path.basename(words[0])} -c runs a string as a command`,
    };
  if (index >= words.length)
    return { lines: [], commands: [], opaque: `${path.basename(words[0])} reads the commands it runs from its input` };
  return { lines: [], commands: [] };
}

function findActions(words: string[]): string[][] {
  const commands: string[][] = [];
  for (let index = 0; index < words.length; index++) {
    if (!FIND_ACTIONS.has(words[index])) continue;
    const end = words.findIndex((word, at) => at > index && (word === ";" || word === "+"));
    commands.push(words.slice(index + 1, end === -1 ? words.length : end));
    index = end === -1 ? words.length : end;
  }
  return commands;
}

/**
 * One way a rule looks at a command: its words, and, when some are open (only known when it
 * runs: shell-split.ts), why no rule can be sure what it runs.
 */
export interface View {
  words: string[];
  why?: string;
  /** Set when git's configuration, not only its words, is what cannot be read: no allow rule covers that either. */
  isGitConfig?: true;
}

/**
 * Every way a deny or ask rule looks at a command: as written, as bash would probably expand
 * it (`{rm,-rf,x}`, `$(echo rm)`), open where bash computes it (`git $x`), without assignments
 * and wrappers, by the basename of its path (`/bin/rm`), past git's own options (git-view.ts),
 * and whatever it hands to a shell or runs (`bash -c`, `eval`, `find -exec`). A command whose
 * words cannot be read at all (code a shell reads from its input, `source`, a line that cannot
 * be split, git's configuration from the environment) has the view `[UNKNOWN]` or
 * `["git", UNKNOWN]`, with the reason: a rule that could match it cannot be checked.
 */
export function commandViews(command: SimpleCommand, depth = 0): View[] {
  const views: View[] = [];
  const forms = [command.words, command.expandedWords, command.openWords].filter((form) => form !== undefined);
  for (const written of forms) {
    const words = withoutFunctionHead(written);
    const inner = unwrap(words);
    const named = withBasename(inner.words);
    const git = gitView(named);
    views.push({ words }, { words: inner.words }, { words: named }, ...(git ? [{ words: git.words }] : []));
    // git's configuration is judged on the form that knows most: open words if any (`git $x` is
    // open, not an alias named `$x`).
    const isLast = written === forms.at(-1);
    if (isLast && git?.unreadable) views.push({ words: ["git", UNKNOWN], why: git.unreadable, isGitConfig: true });
    if (isLast && git?.mayBeAlias) views.push({ words: ["git", UNKNOWN], why: git.mayBeAlias });
    if (inner.opaque && inner.lines.length === 0) views.push({ words: [UNKNOWN], why: inner.opaque });
    if (depth >= MAX_NESTING) {
      if (inner.lines.length + inner.commands.length > 0 || git?.lines.length)
        views.push({ words: [UNKNOWN], why: "it nests shells deeper than rules follow" });
      continue;
    }
    for (const line of [...inner.lines, ...(git?.lines ?? [])]) {
      const split = splitCommand(line);
      if (!split.parsed) views.push({ words: [UNKNOWN], why: `the command line it runs (${line}) cannot be split` });
      for (const nested of split.commands) views.push(...commandViews(nested, depth + 1));
    }
    for (const nested of inner.commands) views.push(...commandViews({ words: nested, writesFile: false }, depth + 1));
  }
  const shown = withoutFunctionHead(command.words).join(" ");
  return views
    .filter((view) => view.words.length > 0)
    .map((view) =>
      view.why === undefined && view.words.some(isOpen)
        ? { ...view, why: `\`${shown}\` has words that are only known when it runs` }
        : view,
    );
}

/** The first command of a function's body (`f() { rm x; }`, `function f { rm x; }`): the splitter keeps the head on it. */
function withoutFunctionHead(words: string[]): string[] {
  let index = 0;
  if (words[0] === "function") index = 2;
  else if (/^[^\s$`]+\(\)$/.test(words[0] ?? "")) index = 1;
  else return words;
  while (words[index] === "{" || words[index] === "(" || words[index] === "()") index++;
  return words.slice(index);
}

function withBasename(words: string[]): string[] {
  return words.length > 0 && words[0].includes("/") ? [path.basename(words[0]), ...words.slice(1)] : words;
}

/**
 * Every view of every part of a split line (commandViews), and what the line as a whole keeps
 * unreadable: a line that cannot be split at all, and any `git` in it when the line sets git's
 * configuration through the environment (`GIT_CONFIG_COUNT=1 …`, `export GIT_DIR=…`).
 */
export function lineViews(split: SplitCommand): View[] {
  const views = split.commands.flatMap((part) => commandViews(part));
  if (!split.parsed) views.push({ words: [UNKNOWN], why: "the command could not be split into parts" });
  const environment = gitEnvironment(views);
  if (environment && views.some((view) => view.words[0] === "git"))
    views.push({ words: ["git", UNKNOWN], why: environment, isGitConfig: true });
  return views;
}
