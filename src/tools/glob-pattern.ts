/**
 * Converts a glob to a RegExp matching a whole `/`-separated relative path:
 * `**` (any number of folders), `*` and `?` (within one name), `{a,b}`, `[abc]`, `[!abc]`, `\x`.
 * Shared by glob, grep's built-in search and the .gitignore matcher.
 */
export function globToRegExp(glob: string, ignoreCase = false): RegExp {
  let source = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") {
      const isDouble = glob[i + 1] === "*";
      const startsSegment = i === 0 || glob[i - 1] === "/";
      const endsSegment = i + 2 >= glob.length || glob[i + 2] === "/";
      if (isDouble && startsSegment && endsSegment) {
        if (glob[i + 2] === "/") {
          source += "(?:.*/)?";
          i += 2;
        } else {
          source += ".*";
          i += 1;
        }
      } else {
        source += "[^/]*";
        if (isDouble) i += 1;
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end === -1) {
        source += "\\[";
      } else {
        let body = glob.slice(i + 1, end);
        const negated = body.startsWith("!") || body.startsWith("^");
        if (negated) body = body.slice(1);
        body = body.replace(/\\/g, "\\\\").replace(/\^/g, "\\^");
        source += negated ? `[^/${body}]` : `[${body}]`;
        i = end;
      }
    } else if (char === "{") {
      braceDepth++;
      source += "(?:";
    } else if (char === "}" && braceDepth > 0) {
      braceDepth--;
      source += ")";
    } else if (char === "," && braceDepth > 0) {
      source += "|";
    } else if (char === "\\" && i + 1 < glob.length) {
      i++;
      source += escapeRegExp(glob[i]);
    } else {
      source += escapeRegExp(char);
    }
  }
  source += ")".repeat(braceDepth);
  return new RegExp(`^${source}$`, ignoreCase ? "i" : "");
}

/** Like ripgrep's --glob and .gitignore: a glob without a `/` matches a name at any depth. */
export function globToPathRegExp(glob: string): RegExp {
  const anchored = glob.startsWith("/") ? glob.slice(1) : glob.includes("/") ? glob : `**/${glob}`;
  return globToRegExp(anchored);
}

/** Whether a glob has any special characters (a plain path otherwise). */
export function hasGlobChars(text: string): boolean {
  return /[*?[\]{}]/.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
