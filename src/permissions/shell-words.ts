// Two of bash's word expansions, for the splitter: brace expansion (`{rm,-rf,x}` → `rm -rf x`,
// `/bin/{ls,rm}` → `/bin/ls /bin/rm`), so a deny rule sees the words bash would run, and ANSI-C
// strings (`$'\x72m'` → `rm`), so `$'\''` is read as the one quote it is.

/** Most words one brace expression may expand to; a larger one is left as written. */
const MAX_BRACE_WORDS = 64;

/** The words `word` expands to (itself when it has no `{a,b}` group, or too many words). */
export function expandBraces(word: string): string[] {
  const expanded = expand(word, 0);
  return expanded && expanded.length <= MAX_BRACE_WORDS ? expanded : [word];
}

function expand(word: string, depth: number): string[] | undefined {
  if (depth > 8) return undefined;
  const group = firstGroup(word);
  if (!group) return [word];
  const prefix = word.slice(0, group.open);
  const suffix = word.slice(group.close + 1);
  const words: string[] = [];
  for (const alternative of group.alternatives) {
    const more = expand(prefix + alternative + suffix, depth + 1);
    if (!more) return undefined;
    words.push(...more);
    if (words.length > MAX_BRACE_WORDS) return undefined;
  }
  return words;
}

/** The first `{...}` with a comma at its own level, and its alternatives. */
function firstGroup(word: string): { open: number; close: number; alternatives: string[] } | undefined {
  for (let open = word.indexOf("{"); open !== -1; open = word.indexOf("{", open + 1)) {
    let level = 0;
    const commas: number[] = [];
    for (let index = open + 1; index < word.length; index++) {
      const char = word[index];
      if (char === "{") level++;
      else if (char === "}" && level > 0) level--;
      else if (char === "," && level === 0) commas.push(index);
      else if (char === "}") {
        if (commas.length === 0) break;
        const bounds = [open, ...commas, index];
        return { open, close: index, alternatives: bounds.slice(1).map((end, i) => word.slice(bounds[i] + 1, end)) };
      }
    }
  }
  return undefined;
}

/** `$'…'` escapes with a one-character meaning. */
const ANSI_C_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Decodes the ANSI-C string whose text starts at `start` (just after `$'`): its value and the
 * index after its closing quote, or undefined when it is not closed.
 */
export function decodeAnsiC(text: string, start: number): { value: string; end: number } | undefined {
  let value = "";
  let index = start;
  while (index < text.length) {
    const char = text[index];
    if (char === "'") return { value, end: index + 1 };
    if (char !== "\\") {
      value += char;
      index++;
      continue;
    }
    const hex = /^x([0-9A-Fa-f]{1,2})/.exec(text.slice(index + 1));
    const octal = /^[0-7]{1,3}/.exec(text.slice(index + 1));
    if (hex) {
      value += String.fromCharCode(Number.parseInt(hex[1], 16));
      index += 1 + hex[0].length;
    } else if (octal) {
      value += String.fromCharCode(Number.parseInt(octal[0], 8));
      index += 1 + octal[0].length;
    } else {
      const escaped = text[index + 1];
      value += ANSI_C_ESCAPES[escaped] ?? `\\${escaped ?? ""}`;
      index += 2;
    }
  }
  return undefined;
}
