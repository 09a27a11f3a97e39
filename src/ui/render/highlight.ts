// A small syntax highlighter for fenced code in answers: keywords, strings, comments, numbers.
// Our own rather than highlight.js: a few hundred bytes of tables load in no time, and per-line
// highlighting with a little carried state is what a streaming renderer needs anyway.

/** How one language looks to the highlighter. */
interface LanguageSpec {
  keywords: Set<string>;
  lineComment: string[];
  blockComment?: [open: string, close: string];
  quotes: string;
  /** Python-style `"""` strings that may span lines. */
  hasTripleQuotes?: boolean;
}

/** Carried from one line of a code block to the next: an open block comment or triple-quoted string. */
export interface HighlightState {
  openUntil?: string;
  openStyle?: "comment" | "string";
}

const words = (text: string) => new Set(text.split(" "));
const C_LIKE =
  "if else for while do switch case default break continue return new delete try catch finally throw class struct enum public private protected static const void";
const LITERALS = words("true false null undefined nil None True False NULL nullptr");

const JS: LanguageSpec = {
  keywords: words(
    `${C_LIKE} function var let import export from as async await yield typeof instanceof in of extends implements interface type readonly this super`,
  ),
  lineComment: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"'\``,
};
const LANGUAGES: Record<string, LanguageSpec> = {
  js: JS,
  python: {
    keywords: words(
      "def class if elif else for while return import from as try except finally raise with lambda yield pass break continue and or not in is global nonlocal async await assert del",
    ),
    lineComment: ["#"],
    quotes: `"'`,
    hasTripleQuotes: true,
  },
  sh: {
    keywords: words(
      "if then else elif fi for while until do done case esac function return in local export set unset echo exit cd source",
    ),
    lineComment: ["#"],
    quotes: `"'`,
  },
  go: {
    keywords: words(`${C_LIKE} func package import var type map chan go defer select range interface fallthrough goto`),
    lineComment: ["//"],
    blockComment: ["/*", "*/"],
    quotes: `"'\``,
  },
  rust: {
    keywords: words(
      "fn let mut const static if else match for while loop return break continue struct enum impl trait pub use mod crate self Self super where as ref move async await dyn unsafe type",
    ),
    lineComment: ["//"],
    blockComment: ["/*", "*/"],
    quotes: `"`,
  },
  c: {
    keywords: words(
      `${C_LIKE} int long short char float double unsigned signed sizeof typedef union extern include define auto template typename namespace using virtual override final import package extends implements interface boolean var`,
    ),
    lineComment: ["//"],
    blockComment: ["/*", "*/"],
    quotes: `"'`,
  },
  ruby: {
    keywords: words(
      "def end class module if elsif else unless while until for in do return yield begin rescue ensure raise require self then case when and or not",
    ),
    lineComment: ["#"],
    quotes: `"'`,
  },
  sql: {
    keywords: words(
      "select from where and or not insert into values update set delete create table drop alter join left right inner outer on group by order having limit as distinct union null is in like primary key index SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT AS DISTINCT UNION NULL IS IN LIKE PRIMARY KEY INDEX",
    ),
    lineComment: ["--"],
    blockComment: ["/*", "*/"],
    quotes: `'"`,
  },
  json: { keywords: new Set(), lineComment: [], quotes: `"` },
  yaml: { keywords: new Set(), lineComment: ["#"], quotes: `"'` },
  css: { keywords: new Set(), lineComment: [], blockComment: ["/*", "*/"], quotes: `"'` },
};
const ALIASES: Record<string, string> = {
  javascript: "js",
  jsx: "js",
  ts: "js",
  tsx: "js",
  typescript: "js",
  mjs: "js",
  cjs: "js",
  py: "python",
  python3: "python",
  bash: "sh",
  shell: "sh",
  zsh: "sh",
  console: "sh",
  shellscript: "sh",
  golang: "go",
  rs: "rust",
  "c++": "c",
  cpp: "c",
  cc: "c",
  h: "c",
  hpp: "c",
  java: "c",
  cs: "c",
  csharp: "c",
  kotlin: "c",
  swift: "c",
  rb: "ruby",
  yml: "yaml",
  jsonc: "json",
  scss: "css",
};

const STYLE = {
  keyword: (text: string) => `\x1b[35m${text}\x1b[39m`,
  string: (text: string) => `\x1b[32m${text}\x1b[39m`,
  comment: (text: string) => `\x1b[2m${text}\x1b[22m`,
  number: (text: string) => `\x1b[33m${text}\x1b[39m`,
};

/** The highlighter's spec for a fence's info string, or undefined (then code is shown plain). */
export function languageFor(info: string): LanguageSpec | undefined {
  const name = info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  return LANGUAGES[ALIASES[name] ?? name];
}

/** One line of code with ANSI colours; `state` carries open comments and strings to the next line. */
export function highlightLine(line: string, language: LanguageSpec, state: HighlightState): string {
  let out = "";
  let i = 0;
  if (state.openUntil) {
    const end = line.indexOf(state.openUntil);
    const style = STYLE[state.openStyle ?? "comment"];
    if (end < 0) return style(line);
    i = end + state.openUntil.length;
    out += style(line.slice(0, i));
    state.openUntil = undefined;
  }
  while (i < line.length) {
    const rest = line.slice(i);
    const block = language.blockComment;
    if (block && rest.startsWith(block[0])) {
      const end = line.indexOf(block[1], i + block[0].length);
      if (end < 0) {
        Object.assign(state, { openUntil: block[1], openStyle: "comment" });
        return out + STYLE.comment(rest);
      }
      out += STYLE.comment(line.slice(i, end + block[1].length));
      i = end + block[1].length;
      continue;
    }
    if (language.lineComment.some((marker) => rest.startsWith(marker))) return out + STYLE.comment(rest);
    const char = line[i];
    if (language.hasTripleQuotes && (rest.startsWith('"""') || rest.startsWith("'''"))) {
      const quote = rest.slice(0, 3);
      const end = line.indexOf(quote, i + 3);
      if (end < 0) {
        Object.assign(state, { openUntil: quote, openStyle: "string" });
        return out + STYLE.string(rest);
      }
      out += STYLE.string(line.slice(i, end + 3));
      i = end + 3;
      continue;
    }
    if (language.quotes.includes(char)) {
      const end = closingQuote(line, i);
      out += STYLE.string(line.slice(i, end));
      i = end;
      continue;
    }
    const number = /^\d[\w.]*/.exec(rest);
    if (number && !/[\w$]/.test(line[i - 1] ?? "")) {
      out += STYLE.number(number[0]);
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (word) {
      out += language.keywords.has(word[0])
        ? STYLE.keyword(word[0])
        : LITERALS.has(word[0])
          ? STYLE.number(word[0])
          : word[0];
      i += word[0].length;
      continue;
    }
    out += char;
    i++;
  }
  return out;
}

/** Index just past the string starting at `start` (or the line's end when it is not closed). */
function closingQuote(line: string, start: number): number {
  const quote = line[start];
  for (let i = start + 1; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === quote) return i + 1;
  }
  return line.length;
}
