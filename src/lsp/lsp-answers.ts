// A language server's answers made compact for the model: each place as `path:line:column`
// (relative to the workspace, counted from 1) with its line of source, symbols as an outline, hover
// text without Markdown fences, each list cut at a bound with a count of the rest. A line of
// source is shown only from a file the session's permissions let the model read (a server may
// point into ~/.ssh as easily as into src/); other places are given without it.
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolContext, ToolOutput } from "../core/tool.ts";
import { cutWithEllipsis } from "../shared/helpers.ts";
import { shownPath } from "./edit-diagnostics-hook.ts";
import type { Diagnostic } from "./lsp-messages.ts";

const MAX_DEFINITIONS = 20;
const MAX_REFERENCES = 50;
const MAX_FILE_SYMBOLS = 200;
const MAX_WORKSPACE_SYMBOLS = 100;
const MAX_DIAGNOSTICS = 50;
const MAX_HOVER_CHARS = 3000;
const MAX_SOURCE_LINE_CHARS = 160;
/** A file larger than this is not read for a line of source. */
const MAX_SOURCE_FILE_BYTES = 1024 * 1024;

/** LSP's SymbolKind numbers (specification 3.17, "SymbolKind"), as words. */
const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];

interface Range {
  start: { line: number; character: number };
}

/** Lines of the files an answer points into, read once each, only where the session may read. */
export class SourceLines {
  private readonly files = new Map<string, string[] | undefined>();

  constructor(
    private readonly cwd: string,
    private readonly checkAtUse: ToolContext["checkAtUse"],
  ) {}

  shown(file: string): string {
    return shownPath(this.cwd, file);
  }

  /** `path:line:column`, and the line's source when it may be read. */
  async place(uri: string, range: Range | undefined): Promise<string> {
    const file = fileOf(uri);
    if (!range) return file ? this.shown(file) : uri;
    const at = `${file ? this.shown(file) : uri}:${range.start.line + 1}:${range.start.character + 1}`;
    const source = file ? (await this.linesOf(file))?.[range.start.line]?.trim() : undefined;
    return source ? `${at}: ${cutWithEllipsis(source, MAX_SOURCE_LINE_CHARS)}` : at;
  }

  private async linesOf(file: string): Promise<string[] | undefined> {
    if (this.files.has(file)) return this.files.get(file);
    let lines: string[] | undefined;
    try {
      const real = realpathSync(file);
      const inside = !path.relative(this.cwd, real).startsWith("..");
      const allowed = this.checkAtUse ? (await this.checkAtUse(real, "read")) === undefined : inside;
      if (allowed && statSync(real).size <= MAX_SOURCE_FILE_BYTES) lines = readFileSync(real, "utf8").split("\n");
    } catch {
      lines = undefined;
    }
    this.files.set(file, lines);
    return lines;
  }
}

function fileOf(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** Definition and references: Location, Location[] or LocationLink[] (LSP allows each). */
export async function formatLocations(
  answer: unknown,
  lines: SourceLines,
  kind: "definition" | "reference",
): Promise<ToolOutput> {
  const items = (Array.isArray(answer) ? answer : answer ? [answer] : []) as Array<Record<string, unknown>>;
  const places = items.flatMap((item) => {
    const uri = (item.uri ?? item.targetUri) as string | undefined;
    const range = (item.range ?? item.targetSelectionRange ?? item.targetRange) as Range | undefined;
    return typeof uri === "string" ? [{ uri, range }] : [];
  });
  if (places.length === 0) return { content: `No ${kind} found.`, summary: `0 ${kind}s` };
  const max = kind === "definition" ? MAX_DEFINITIONS : MAX_REFERENCES;
  const shown = await Promise.all(places.slice(0, max).map((place) => lines.place(place.uri, place.range)));
  const files = new Set(places.map((place) => place.uri)).size;
  const head =
    kind === "definition"
      ? `${places.length === 1 ? "Defined at" : `${places.length} definitions`}:`
      : `${places.length} reference${places.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}:`;
  const more = places.length > max ? [`... and ${places.length - max} more`] : [];
  return { content: [head, ...shown, ...more].join("\n"), summary: `${places.length} ${kind}s` };
}

/** Hover: MarkupContent, a MarkedString or a list of them, as plain text. */
export function formatHover(answer: unknown): ToolOutput {
  const contents = (answer as { contents?: unknown } | null)?.contents;
  const parts = (Array.isArray(contents) ? contents : [contents]).map((part) =>
    typeof part === "string" ? part : typeof part?.value === "string" ? part.value : "",
  );
  const text = parts
    .join("\n")
    .split("\n")
    .filter((line) => !line.trim().startsWith("```"))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (!text) return { content: "Nothing to show here (no symbol at that position?).", summary: "nothing" };
  return { content: cutWithEllipsis(text, MAX_HOVER_CHARS), summary: "hover" };
}

/** Symbols: DocumentSymbol[] (an outline with children), SymbolInformation[] or WorkspaceSymbol[]. */
export async function formatSymbols(
  answer: unknown,
  lines: SourceLines,
  scope: "file" | "workspace",
): Promise<ToolOutput> {
  const max = scope === "file" ? MAX_FILE_SYMBOLS : MAX_WORKSPACE_SYMBOLS;
  const out: string[] = [];
  let total = 0;
  const walk = async (items: unknown, depth: number) => {
    for (const item of Array.isArray(items) ? items : []) {
      if (typeof item?.name !== "string") continue;
      total += 1;
      if (out.length < max) {
        const kind = SYMBOL_KINDS[item.kind] ?? "symbol";
        const container = item.containerName ? ` in ${item.containerName}` : "";
        const where = item.location
          ? ` ${await lines.place(item.location.uri, scope === "workspace" ? item.location.range : undefined)}`
          : "";
        const line = item.selectionRange ?? item.range ?? item.location?.range;
        const at = scope === "file" && line ? ` (line ${line.start.line + 1})` : "";
        out.push(`${"  ".repeat(depth)}${kind} ${item.name}${container}${scope === "file" ? at : where}`);
      }
      await walk(item.children, depth + 1);
    }
  };
  await walk(answer, 0);
  if (total === 0) return { content: "No symbols found.", summary: "0 symbols" };
  const more = total > max ? [`... and ${total - max} more`] : [];
  return { content: [...out, ...more].join("\n"), summary: `${total} symbols` };
}

/** A file's diagnostics now: errors, then warnings, then the rest, in line order. */
export function formatDiagnostics(shown: string, found: Diagnostic[]): ToolOutput {
  if (found.length === 0) return { content: `${shown}: no errors or warnings.`, summary: "clean" };
  const names = ["", "error", "warning", "info", "hint"];
  const sorted = [...found].sort(
    (a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line,
  );
  const listed = sorted.slice(0, MAX_DIAGNOSTICS).map((d) => {
    const message = cutWithEllipsis(d.message.replace(/\s+/g, " ").trim(), 300);
    const code = d.code === undefined ? "" : ` (${d.code})`;
    return `${shown}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${names[d.severity ?? 1] ?? "error"}: ${message}${code}`;
  });
  const more = found.length > MAX_DIAGNOSTICS ? [`... and ${found.length - MAX_DIAGNOSTICS} more`] : [];
  return { content: [...listed, ...more].join("\n"), summary: `${found.length} diagnostics` };
}
