// Absolute path globs, as permission rules and the folders recursive reads stay out of use them:
// `**` crosses folders (`a/**/b` matches `a/b`, `dir/**` matches `dir` too), `*` and `?` stay
// within one name, `[abc]`, `[a-z]` and `[!abc]` are one character of a set (gitignore's glob
// syntax), and a glob naming a folder covers everything inside it.

/** Whether `text` holds a glob character (`*`, `?`, `[`): a path with none names one file or folder. */
export function hasGlob(text: string): boolean {
  return /[*?[]/.test(text);
}

/** Whether the absolute glob covers the absolute path: matches it, or a folder above it. */
export function globCovers(glob: string, absolute: string): boolean {
  const trimmed = glob.replace(/\/+$/, "") || "/";
  return globRegExp(trimmed).test(absolute) || globRegExp(`${trimmed === "/" ? "" : trimmed}/**`).test(absolute);
}

function globRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*" && glob[i + 1] === "*") {
      // `dir/**` also matches `dir` itself; `a/**/b` matches `a/b`.
      if (glob[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 2;
      } else {
        if (source.endsWith("/")) source = `${source.slice(0, -1)}(?:/.*)?`;
        else source += ".*";
        i += 1;
      }
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[" && bracketEnd(glob, i) !== -1) {
      const end = bracketEnd(glob, i);
      let body = glob.slice(i + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^/" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** Where the bracket expression opened at `start` closes (a `]` right after `[` or `[!` is part of the set), or -1. */
function bracketEnd(glob: string, start: number): number {
  let i = start + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++;
  for (; i < glob.length; i++) {
    if (glob[i] === "/") return -1;
    if (glob[i] === "]") return i;
  }
  return -1;
}
