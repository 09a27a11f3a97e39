// Splits a bash command line into the simple commands it would run, so a rule can look at
// each one: `a && b`, `a || b`, `a; b`, `a | b`, `a & b`, newlines, `( a )`, `{ a; }`,
// `$(a)`, backticks, `<(a)` and `>(a)`. It is a careful reader, not a full bash parser:
// whatever it cannot read makes the command unparsed, which never matches an allow rule.

/** One simple command: its words with quotes removed, and whether it redirects output into a file. */
export interface SimpleCommand {
  words: string[];
  /** `>` or `>>` into anything but /dev/null or another descriptor. */
  writesFile: boolean;
}

/** Every simple command in a command line, nested ones included; `parsed` is false when the reader gave up. */
export interface SplitCommand {
  commands: SimpleCommand[];
  parsed: boolean;
}

/** Words that open or close compound commands; the command proper follows them. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"]);
/** Deepest `$( $( ... ) )` nesting read before giving up. */
const MAX_NESTING = 20;

class Unparsable extends Error {}

export function splitCommand(line: string): SplitCommand {
  const commands: SimpleCommand[] = [];
  try {
    const reader = new Reader(line, commands, 0);
    reader.readList(undefined);
    if (reader.position < line.length) throw new Unparsable("unbalanced )");
    return { commands: commands.filter(isMeaningful), parsed: true };
  } catch (error) {
    if (!(error instanceof Unparsable)) throw error;
    return { commands: commands.filter(isMeaningful), parsed: false };
  }
}

/** Drops the empty commands separators leave; keeps a wordless one that writes a file (`( a ) > out`). */
function isMeaningful(command: SimpleCommand): boolean {
  return command.words.length > 0 || command.writesFile;
}

class Reader {
  position = 0;

  constructor(
    private readonly text: string,
    private readonly out: SimpleCommand[],
    private readonly depth: number,
    start = 0,
  ) {
    this.position = start;
    if (depth > MAX_NESTING) throw new Unparsable("nested too deeply");
  }

  /** Reads commands until `closer` (`)` or a backtick) or the end; leaves position after the closer. */
  readList(closer: ")" | "`" | undefined): void {
    let command = this.newCommand();
    let word: string | undefined;
    let pendingRedirect: "out" | "in" | undefined;

    const endWord = () => {
      if (word === undefined) return;
      if (pendingRedirect) {
        if (pendingRedirect === "out" && word !== "/dev/null") command.writesFile = true;
        pendingRedirect = undefined;
      } else if (!(command.words.length === 0 && KEYWORDS.has(word))) {
        command.words.push(word);
      }
      word = undefined;
    };
    const endCommand = () => {
      endWord();
      if (pendingRedirect) throw new Unparsable("redirection without a target");
      command = this.newCommand();
    };

    while (this.position < this.text.length) {
      const char = this.text[this.position];
      const next = this.text[this.position + 1];
      if (char === closer) {
        endCommand();
        this.position++;
        return;
      }
      if (char === " " || char === "\t") {
        endWord();
        this.position++;
      } else if (char === "\n" || char === ";" || char === "|" || (char === "&" && next !== ">")) {
        endCommand();
        this.position += (char === "&" || char === "|" || char === ";") && (next === char || (char === "|" && next === "&")) ? 2 : 1;
      } else if (char === "#" && word === undefined) {
        while (this.position < this.text.length && this.text[this.position] !== "\n") this.position++;
      } else if (char === "(" && word === undefined) {
        // A subshell `( ... )` (or arithmetic `(( ... ))`, read the same way).
        this.position = this.nested(this.position + 1, ")");
      } else if ((char === ">" || char === "<") && next === "(") {
        endWord();
        this.position = this.nested(this.position + 2, ")");
      } else if (char === ">" || char === "<" || (char === "&" && next === ">")) {
        // A leading descriptor number (`2>`) belongs to the redirection, not the words.
        if (word !== undefined && /^\d+$/.test(word)) word = undefined;
        endWord();
        pendingRedirect = this.readRedirection();
      } else {
        word = (word ?? "") + this.readWordPiece();
      }
    }
    if (closer) throw new Unparsable(`missing ${closer}`);
    endCommand();
  }

  /**
   * Reads a redirection operator (`>`, `>>`, `>|`, `&>`, `<`, `<<`, `<<<`, `2>&1`, ...) and says
   * what its target is: a file written, a file read, or nothing (a descriptor like `&1`).
   */
  private readRedirection(): "out" | "in" | undefined {
    const operator = /^(?:&>>?|>&|<&|>>?\|?|<<<|<<-?|<>|<)/.exec(this.text.slice(this.position))?.[0] ?? this.text[this.position];
    this.position += operator.length;
    if (operator.endsWith("&")) {
      const descriptor = /^(?:\d+-?|-)/.exec(this.text.slice(this.position))?.[0];
      if (descriptor) {
        this.position += descriptor.length;
        return undefined;
      }
    }
    return operator.startsWith("<") && operator !== "<>" ? "in" : "out";
  }

  /** One piece of a word: quoted text, an escape, a substitution (read as nested commands) or a plain character. */
  private readWordPiece(): string {
    const char = this.text[this.position];
    const next = this.text[this.position + 1];
    if (char === "\\") {
      this.position += 2;
      return next === "\n" || next === undefined ? "" : next;
    }
    if (char === "'") {
      const end = this.text.indexOf("'", this.position + 1);
      if (end === -1) throw new Unparsable("unterminated '");
      const quoted = this.text.slice(this.position + 1, end);
      this.position = end + 1;
      return quoted;
    }
    if (char === '"') return this.readDoubleQuoted();
    if (char === "$" && next === "(") {
      this.position = this.nested(this.position + 2, ")");
      return "$(…)";
    }
    if (char === "`") {
      this.position = this.nested(this.position + 1, "`");
      return "$(…)";
    }
    this.position++;
    return char;
  }

  private readDoubleQuoted(): string {
    let value = "";
    this.position++;
    while (this.position < this.text.length) {
      const char = this.text[this.position];
      const next = this.text[this.position + 1];
      if (char === '"') {
        this.position++;
        return value;
      }
      if (char === "\\" && next !== undefined && '"\\$`\n'.includes(next)) {
        value += next === "\n" ? "" : next;
        this.position += 2;
      } else if ((char === "$" && next === "(") || char === "`") {
        value += this.readWordPiece();
      } else {
        value += char;
        this.position++;
      }
    }
    throw new Unparsable('unterminated "');
  }

  /** Reads a nested command list starting at `start` up to `closer`; returns the position after it. */
  private nested(start: number, closer: ")" | "`"): number {
    const reader = new Reader(this.text, this.out, this.depth + 1, start);
    reader.readList(closer);
    return reader.position;
  }

  private newCommand(): SimpleCommand {
    const command: SimpleCommand = { words: [], writesFile: false };
    this.out.push(command);
    return command;
  }
}
