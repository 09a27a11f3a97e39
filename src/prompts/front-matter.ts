// The YAML front matter of a Markdown file (`---` lines around `key: value` pairs), as the Agent
// Skills format and Claude Code's commands use it. Only flat string fields are read: plain,
// quoted, and `>` / `|` block scalars; a full YAML parser would be a dependency for two fields.

/** A Markdown file split into its front matter fields and its body. */
export interface MarkdownWithFields {
  fields: Record<string, string>;
  body: string;
}

/** Splits a file into front matter and body; a file without front matter is all body. */
export function parseFrontMatter(text: string): MarkdownWithFields {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { fields: {}, body: text };
  return { fields: parseFields(match[1].split(/\r?\n/)), body: text.slice(match[0].length) };
}

function parseFields(lines: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const pair = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(lines[i]);
    if (!pair) continue;
    const [, key, rest = ""] = pair;
    // Indented lines after a key belong to its value (a block scalar or a wrapped plain one).
    const continued: string[] = [];
    while (
      i + 1 < lines.length &&
      (/^\s+\S/.test(lines[i + 1]) || (lines[i + 1].trim() === "" && /^\s+\S/.test(lines[i + 2] ?? "")))
    )
      continued.push(lines[++i].trim());
    fields[key] = scalarOf(rest.trim(), continued);
  }
  return fields;
}

function scalarOf(first: string, continued: string[]): string {
  if (/^[|>][+-]?$/.test(first))
    return first.startsWith("|") ? continued.join("\n") : continued.join(" ").replace(/ {2,}/g, " ");
  const plain = [first, ...continued].filter(Boolean).join(" ");
  const quoted = /^(["'])([\s\S]*)\1$/.exec(plain);
  if (!quoted) return plain.replace(/\s+#.*$/, "");
  return quoted[1] === "'"
    ? quoted[2].replace(/''/g, "'")
    : quoted[2].replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
}

/** A front matter value as one line with no control characters (it is a file's text, shown and sent). */
export function oneLine(text: string): string {
  return text
    .replace(/[\x00-\x1f\x7f-\x9f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
