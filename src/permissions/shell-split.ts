// Splits a bash command line into the simple commands it would run, so a rule can look at
// each one: `a && b`, `a || b`, `a; b`, `a | b`, `a & b`, newlines, `( a )`, `{ a; }`,
// `$(a)`, backticks, `<(a)` and `>(a)`, heredoc bodies, `case` branches, `coproc`, the bodies
// of `if`/`while`/`for` and of functions. It is a careful reader, not a full bash parser, and
// it fails closed: whatever it cannot read makes the command unparsed (a `)` or `;;` where bash
// wants none, `a(b)`, an unclosed `case`); a word whose value is only known when it runs (`$x`,
// `"$x"`, `$(…)`, a glob `pu?h`, `{1..3}`) is marked in `openWords`; whatever it reads but
// cannot be sure of (ANSI-C `$'…'` strings, heredocs, process substitution) is named in
// `unsure`. Allow, ask and deny rules all fail closed on the first two (policy.ts); allow rules
// on the third too.
//
// Hand-written rather than a bash grammar from npm, decided in issue 51 by bench/shell-grammar.ts
// on the 104 lines of test/support/shell-spellings.ts: this reader judged all 104 right; tree-sitter-bash
// (1.4 MB of WASM plus web-tree-sitter's 0.2 MB, 0.4-1.3 s to load as the machine is loaded, so
// only to be loaded lazily when a rule needs it) judged 102, reading `coproc rm x` as a command
// named `coproc`; mvdan/sh as WASM (`sh-syntax`, 0.75 MB) parsed all 104 in 9-25 s, against
// 0.1 s here. The attacks that got through were about values (`x=push; git $x`, `git pu?h`,
// `xargs git`, git's configuration from the environment), which a grammar does not know either:
// it tells where `$x` is, not what it holds. This reader only has to know when it does not know.
import { decodeAnsiC, expandBraces } from "./shell-words.ts";

/** One simple command: its words with quotes removed, and whether it redirects output into a file. */
export interface SimpleCommand {
  words: string[];
  /** `>` or `>>` into anything but /dev/null or another descriptor. */
  writesFile: boolean;
  /**
   * The words as bash would probably expand them, when that differs: unquoted brace expansion
   * applied (`{rm,-rf,x}` → `rm -rf x`) and `$(echo rm)` replaced by its output. Deny rules
   * look at both; allow rules never trust a guess.
   */
  expandedWords?: string[];
  /**
   * The words with each one bash computes when it runs (a variable, a substitution, a glob, a
   * sequence `{1..3}`) cut at its first computed character and ended with UNKNOWN (`git $x` is
   * `git \0`, `pu?h` is `pu\0`); present only when some word is so. A rule that could match
   * what such a word becomes cannot be checked.
   */
  openWords?: string[];
}

/** Ends a word of `openWords` where bash computes the rest when it runs. */
export const UNKNOWN = "\0";

/** Whether a word (of `openWords` or a view of them) holds something computed when it runs. */
export function isOpen(word: string): boolean {
  return word.includes(UNKNOWN);
}

/** Every simple command in a command line, nested ones included; `parsed` is false when the reader gave up. */
export interface SplitCommand {
  commands: SimpleCommand[];
  parsed: boolean;
  /** What the line uses that the reader does not follow well enough to allow it by a rule (`ANSI-C quoting ($'…')`). */
  unsure?: string;
}

/** Words that open or close compound commands; the command proper follows them. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"]);
/** An assignment's name (`X=`, `X+=`, `a[1]=`): a word of this shape is never the command. */
/** What after `$` makes bash expand it: a name, `{`, `[` (old arithmetic), a digit or a special parameter. */
const EXPANDS_AFTER_DOLLAR = /[A-Za-z_0-9{[@*#?$!-]/;
const ASSIGNMENT_HEAD = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
/** Deepest `$( $( ... ) )` nesting read before giving up. */
const MAX_NESTING = 20;

class Unparsable extends Error {}

/** What all readers of one line share: the reasons it cannot be vouched for. */
interface ReadState {
  unsure: string[];
}

/** A heredoc announced on the current line; its body starts after the next newline. */
interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  /** Unquoted delimiter: `$(…)` and backticks in the body run. */
  expands: boolean;
}

/** The word being read: its literal text, its probable expansion, and what it contained. */
interface WordInProgress {
  text: string;
  guess: string;
  isQuoted: boolean;
  hasBrace: boolean;
  hasSubstitution: boolean;
  /** Where in `text` the first character bash computes when it runs is (a `$`, an unquoted glob). */
  openAt?: number;
  /** Where an unquoted `[` is, which with a later `]` makes the word a glob. */
  bracketAt?: number;
}

export function splitCommand(line: string): SplitCommand {
  const commands: SimpleCommand[] = [];
  const state: ReadState = { unsure: [] };
  const result = (parsed: boolean): SplitCommand => {
    const split: SplitCommand = { commands: commands.filter(isMeaningful).map(withoutSameExpansion), parsed };
    if (state.unsure.length > 0) split.unsure = state.unsure[0];
    return split;
  };
  try {
    const reader = new Reader(line, commands, state, 0);
    reader.readList(undefined);
    if (reader.position < line.length) throw new Unparsable("unbalanced )");
    return result(true);
  } catch (error) {
    if (!(error instanceof Unparsable)) throw error;
    return result(false);
  }
}

/** Drops the empty commands separators leave; keeps a wordless one that writes a file (`( a ) > out`). */
function isMeaningful(command: SimpleCommand): boolean {
  return command.words.length > 0 || command.writesFile;
}

function withoutSameExpansion(command: SimpleCommand): SimpleCommand {
  const { expandedWords, openWords, ...rest } = command;
  const isSame =
    !expandedWords ||
    (expandedWords.length === command.words.length &&
      expandedWords.every((word, index) => word === command.words[index]));
  const result: SimpleCommand = isSame ? rest : { ...rest, expandedWords };
  if (openWords?.some(isOpen)) result.openWords = openWords;
  return result;
}

class Reader {
  position = 0;
  private heredocs: PendingHeredoc[] = [];

  constructor(
    private readonly text: string,
    private readonly out: SimpleCommand[],
    private readonly state: ReadState,
    private readonly depth: number,
    start = 0,
  ) {
    this.position = start;
    if (depth > MAX_NESTING) throw new Unparsable("nested too deeply");
  }

  /** Reads commands until `closer` (`)` or a backtick) or the end; leaves position after the closer. */
  readList(closer: ")" | "`" | undefined): void {
    let command = this.newCommand();
    let word: WordInProgress | undefined;
    let pendingRedirect: "out" | "in" | "heredoc" | "heredoc-strip" | undefined;
    // `case WORD in`: where in its head the reader is; then how many cases are open here, and
    // whether a pattern (`x)`, `(a|b)`) comes next, after `in` or a `;;`.
    let caseHead: "word" | "in" | undefined;
    let openCases = 0;
    let expectsPattern = false;
    // `coproc NAME { …; }`: the name before a compound command is no command.
    let isCoproc = false;
    // `time [-p] …`: the keyword and its option are no command.
    let isTimed = false;

    const endWord = () => {
      if (word === undefined) return;
      const isKeyword = command.words.length === 0 && !word.isQuoted;
      if (pendingRedirect === "heredoc" || pendingRedirect === "heredoc-strip") {
        this.heredocs.push({
          delimiter: word.text,
          stripTabs: pendingRedirect === "heredoc-strip",
          expands: !word.isQuoted,
        });
        pendingRedirect = undefined;
      } else if (pendingRedirect) {
        if (pendingRedirect === "out" && word.text !== "/dev/null") command.writesFile = true;
        pendingRedirect = undefined;
      } else if (caseHead === "word") {
        caseHead = "in";
      } else if (caseHead === "in") {
        if (word.text !== "in" || word.isQuoted) throw new Unparsable("case without in");
        caseHead = undefined;
        openCases++;
        expectsPattern = true;
      } else if (isKeyword && word.text === "case") {
        caseHead = "word";
      } else if (isKeyword && word.text === "esac") {
        if (openCases === 0) throw new Unparsable("esac without case");
        openCases--;
      } else if (isKeyword && word.text === "coproc" && !isCoproc) {
        isCoproc = true;
      } else if (isCoproc && command.words.length === 1 && !word.isQuoted && word.text === "{") {
        command.words = [];
        command.expandedWords = [];
        command.openWords = [];
      } else if (isKeyword && word.text === "time") {
        isTimed = true;
      } else if (isTimed && command.words.length === 0 && (word.text === "-p" || word.text === "--")) {
        // `time -p cmd`: the option belongs to the keyword.
      } else if (!(isKeyword && KEYWORDS.has(word.text))) {
        this.pushWord(command, word);
      }
      word = undefined;
    };
    const endCommand = () => {
      endWord();
      if (pendingRedirect) throw new Unparsable("redirection without a target");
      if (caseHead) throw new Unparsable("case without in");
      isCoproc = false;
      isTimed = false;
      command = this.newCommand();
    };

    while (this.position < this.text.length) {
      const char = this.text[this.position];
      const next = this.text[this.position + 1];
      if (expectsPattern && word === undefined && !" \t\n#".includes(char)) {
        expectsPattern = false;
        if (/^esac(?=[\s;&|)]|$)/.test(this.text.slice(this.position))) {
          this.position += 4;
          openCases--;
        } else this.readCasePattern();
        continue;
      }
      if (char === closer) {
        endCommand();
        this.position++;
        if (openCases > 0) throw new Unparsable("case without esac");
        return;
      }
      if (char === " " || char === "\t") {
        endWord();
        this.position++;
      } else if (char === "\n") {
        if (caseHead) endWord();
        else endCommand();
        this.position++;
        this.readHeredocBodies();
      } else if (char === ";" && (next === ";" || next === "&")) {
        // `;;`, `;&` and `;;&` end a case branch; anywhere else they are bash's syntax error.
        if (openCases === 0) throw new Unparsable(`${char}${next} outside a case`);
        endCommand();
        this.position += next === ";" && this.text[this.position + 2] === "&" ? 3 : 2;
        expectsPattern = true;
      } else if (char === ";" || char === "|" || (char === "&" && next !== ">")) {
        endCommand();
        this.position += next === char || (char === "|" && next === "&") ? 2 : 1;
      } else if (char === "#" && word === undefined) {
        while (this.position < this.text.length && this.text[this.position] !== "\n") this.position++;
      } else if (char === "(" && word === undefined) {
        // A subshell `( ... )` (or arithmetic `(( ... ))`, read the same way).
        this.position = this.nested(this.position + 1, ")");
      } else if (char === ")") {
        throw new Unparsable("unbalanced )");
      } else if ((char === ">" || char === "<") && next === "(") {
        endWord();
        this.unsure("process substitution");
        this.position = this.nested(this.position + 2, ")");
      } else if (char === ">" || char === "<" || (char === "&" && next === ">")) {
        // A leading descriptor number (`2>`) belongs to the redirection, not the words.
        if (word !== undefined && /^\d+$/.test(word.text)) word = undefined;
        endWord();
        pendingRedirect = this.readRedirection();
      } else {
        word ??= { text: "", guess: "", isQuoted: false, hasBrace: false, hasSubstitution: false };
        this.readWordPiece(word);
      }
    }
    if (closer) throw new Unparsable(`missing ${closer}`);
    endCommand();
    if (openCases > 0) throw new Unparsable("case without esac");
    if (this.heredocs.length > 0) throw new Unparsable("a heredoc without a body");
  }

  /** Adds a finished word to the command: as written, as bash would probably expand it, and open where it is computed. */
  private pushWord(command: SimpleCommand, word: WordInProgress): void {
    command.words.push(word.text);
    const guesses = word.hasBrace ? expandBraces(word.guess) : [word.guess];
    command.expandedWords?.push(
      ...(word.hasSubstitution ? guesses.flatMap((guess) => guess.split(/\s+/).filter(Boolean)) : guesses),
    );
    // A sequence `{1..3}` is expanded by bash, not by expandBraces.
    const sequence = word.hasBrace ? /\{[^{}]*\.\.[^{}]*\}/.exec(word.text) : null;
    const openAt = Math.min(word.openAt ?? Number.POSITIVE_INFINITY, sequence?.index ?? Number.POSITIVE_INFINITY);
    if (openAt === Number.POSITIVE_INFINITY) return void command.openWords?.push(...guesses);
    // An assignment's value does not change which command runs (git's own variables are
    // git-view.ts's concern), so `X=$y cmd` keeps the assignment's shape: `X=\0`.
    const head = ASSIGNMENT_HEAD.exec(word.text)?.[0].length ?? 0;
    command.openWords?.push(word.text.slice(0, Math.max(openAt, head)) + UNKNOWN);
  }

  /**
   * A case branch's pattern, up to its `)` (an optional `(` before it): quotes, escapes and
   * substitutions (read as nested commands) inside it, `|` between alternatives.
   */
  private readCasePattern(): void {
    if (this.text[this.position] === "(") this.position++;
    const pattern: WordInProgress = { text: "", guess: "", isQuoted: false, hasBrace: false, hasSubstitution: false };
    let depth = 0;
    while (this.position < this.text.length) {
      const char = this.text[this.position];
      if (char === ")" && depth === 0) {
        if (pattern.text.trim() === "") throw new Unparsable("an empty case pattern");
        this.position++;
        return;
      }
      if (char === "\n") throw new Unparsable("a case pattern across lines");
      if (char === "(") depth++;
      if (char === ")") depth--;
      if (" \t|()".includes(char)) {
        pattern.text += char;
        this.position++;
      } else this.readWordPiece(pattern);
    }
    throw new Unparsable("a case pattern without )");
  }

  /**
   * Reads a redirection operator (`>`, `>>`, `>|`, `&>`, `<`, `<<`, `<<<`, `2>&1`, ...) and says
   * what its target is: a file written, a file read, a heredoc delimiter, or nothing (a descriptor like `&1`).
   */
  private readRedirection(): "out" | "in" | "heredoc" | "heredoc-strip" | undefined {
    const operator =
      /^(?:&>>?|>&|<&|>>?\|?|<<<|<<-?|<>|<)/.exec(this.text.slice(this.position))?.[0] ?? this.text[this.position];
    this.position += operator.length;
    if (operator.endsWith("&")) {
      const descriptor = /^(?:\d+-?|-)/.exec(this.text.slice(this.position))?.[0];
      if (descriptor) {
        this.position += descriptor.length;
        return undefined;
      }
    }
    if (operator === "<<" || operator === "<<-") {
      this.unsure("a heredoc");
      return operator === "<<" ? "heredoc" : "heredoc-strip";
    }
    return operator.startsWith("<") && operator !== "<>" ? "in" : "out";
  }

  /**
   * After a newline, the bodies of the heredocs announced on that line: skipped up to their
   * delimiter line, except that an unquoted delimiter's body runs its `$(…)` and backticks,
   * which are read as nested commands.
   */
  private readHeredocBodies(): void {
    for (const heredoc of this.heredocs.splice(0)) {
      let isClosed = false;
      while (this.position < this.text.length && !isClosed) {
        const lineEnd =
          this.text.indexOf("\n", this.position) === -1 ? this.text.length : this.text.indexOf("\n", this.position);
        const line = this.text.slice(this.position, lineEnd);
        if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) isClosed = true;
        else if (heredoc.expands) this.readSubstitutionsUpTo(lineEnd);
        this.position = Math.max(this.position, lineEnd + 1);
      }
      if (!isClosed) throw new Unparsable(`heredoc without its ${heredoc.delimiter} line`);
    }
  }

  private readSubstitutionsUpTo(end: number): void {
    while (this.position < end) {
      const char = this.text[this.position];
      if (char === "\\") this.position += 2;
      else if (char === "$" && this.text[this.position + 1] === "(")
        this.position = this.nested(this.position + 2, ")");
      else if (char === "`") this.position = this.nested(this.position + 1, "`");
      else this.position++;
    }
  }

  /** One piece of a word: quoted text, an escape, a substitution (read as nested commands) or a plain character. */
  private readWordPiece(word: WordInProgress): void {
    const char = this.text[this.position];
    const next = this.text[this.position + 1];
    const add = (text: string, guess = text) => {
      word.text += text;
      word.guess += guess;
    };
    if (char === "\\") {
      this.position += 2;
      word.isQuoted = true;
      return add(next === "\n" || next === undefined ? "" : next);
    }
    if (char === "'") {
      const end = this.text.indexOf("'", this.position + 1);
      if (end === -1) throw new Unparsable("unterminated '");
      word.isQuoted = true;
      add(this.text.slice(this.position + 1, end));
      this.position = end + 1;
      return;
    }
    if (char === "$" && next === "'") {
      word.isQuoted = true;
      return add(this.readAnsiC());
    }
    if (char === '"' || (char === "$" && next === '"')) {
      if (char === "$") this.position++;
      word.isQuoted = true;
      return this.readDoubleQuoted(word);
    }
    if ((char === "$" && next === "(") || char === "`") {
      word.hasSubstitution = true;
      word.openAt ??= word.text.length;
      return add("$(…)", this.readSubstitution());
    }
    if (char === "(") return this.readParenthesisInWord(word);
    if (char === "{") word.hasBrace = true;
    if ((char === "$" && next !== undefined && EXPANDS_AFTER_DOLLAR.test(next)) || char === "*" || char === "?")
      word.openAt ??= word.text.length;
    if (char === "[") word.bracketAt ??= word.text.length;
    if (char === "]" && word.bracketAt !== undefined) word.openAt ??= word.bracketAt;
    this.position++;
    add(char);
  }

  /**
   * A `(` inside a word: an array assignment `a=(x "y z" $(cmd))`, read to its `)`, or a
   * function's head `f()`; anything else (`a(b)`, extglob `@(x|y)`) is not read.
   */
  private readParenthesisInWord(word: WordInProgress): void {
    if (this.text[this.position + 1] === ")") {
      this.position += 2;
      word.text += "()";
      word.guess += "()";
      return;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(word.text)) throw new Unparsable("( inside a word");
    word.text += "(";
    word.guess += "(";
    this.position++;
    while (this.position < this.text.length) {
      const char = this.text[this.position];
      if (char === ")") {
        this.position++;
        word.text += ")";
        word.guess += ")";
        return;
      }
      if (char === "(") throw new Unparsable("( inside an array");
      if (" \t\n".includes(char)) {
        word.text += " ";
        word.guess += " ";
        this.position++;
      } else this.readWordPiece(word);
    }
    throw new Unparsable("an array without )");
  }

  private readDoubleQuoted(word: WordInProgress): void {
    this.position++;
    while (this.position < this.text.length) {
      const char = this.text[this.position];
      const next = this.text[this.position + 1];
      if (char === '"') {
        this.position++;
        return;
      }
      if (char === "\\" && next !== undefined && '"\\$`\n'.includes(next)) {
        word.text += next === "\n" ? "" : next;
        word.guess += next === "\n" ? "" : next;
        this.position += 2;
      } else if ((char === "$" && next === "(") || char === "`") {
        word.openAt ??= word.text.length;
        word.text += "$(…)";
        word.guess += this.readSubstitution();
      } else {
        if (char === "$" && next !== undefined && EXPANDS_AFTER_DOLLAR.test(next)) word.openAt ??= word.text.length;
        word.text += char;
        word.guess += char;
        this.position++;
      }
    }
    throw new Unparsable('unterminated "');
  }

  /**
   * `$(…)` or a backtick substitution, read as nested commands. Returns what it probably prints
   * when that is plain (`$(echo rm)` → `rm`), so a deny rule sees through it; else `$(…)`.
   */
  private readSubstitution(): string {
    const first = this.out.length;
    const isBacktick = this.text[this.position] === "`";
    this.position = this.nested(this.position + (isBacktick ? 1 : 2), isBacktick ? "`" : ")");
    const inner = this.out.slice(first).filter(isMeaningful);
    const words = inner.length === 1 && !inner[0].writesFile ? inner[0].words : [];
    if (words[0] !== "echo" && words[0] !== "printf") return "$(…)";
    return words
      .slice(1)
      .filter((w) => !/^-[neE]+$/.test(w))
      .join(" ");
  }

  /** `$'…'`: backslash escapes decoded, so `$'\''` is one quote and not the start of a string. */
  private readAnsiC(): string {
    this.unsure("ANSI-C quoting ($'…')");
    const decoded = decodeAnsiC(this.text, this.position + 2);
    if (!decoded) throw new Unparsable("unterminated $'");
    this.position = decoded.end;
    return decoded.value;
  }

  /** Reads a nested command list starting at `start` up to `closer`; returns the position after it. */
  private nested(start: number, closer: ")" | "`"): number {
    const reader = new Reader(this.text, this.out, this.state, this.depth + 1, start);
    reader.readList(closer);
    return reader.position;
  }

  private unsure(reason: string): void {
    if (!this.state.unsure.includes(reason)) this.state.unsure.push(reason);
  }

  private newCommand(): SimpleCommand {
    const command: SimpleCommand = { words: [], writesFile: false, expandedWords: [], openWords: [] };
    this.out.push(command);
    return command;
  }
}
